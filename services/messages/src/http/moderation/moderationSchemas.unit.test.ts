import { describe, expect, it } from 'vitest';
import { csvTerms, keywordsInput } from './moderationSchemas.js';

describe('keyword lists from a form', () => {
  it('reads the terms of a CSV file: commas or line breaks between them, quotes and blanks dropped', () => {
    expect(csvTerms('"a",b\r\n  c d ,,\n"e, ""f"""\n')).toEqual(['a', 'b', 'c d', 'e, "f"']);
  });

  it('takes the fields of a multipart form, the file as its terms; JSON bodies pass through', async () => {
    const form = new FormData();
    form.append('id', 'l');
    form.append('category', 'word');
    form.append('file', new Blob(['x\ny']), 'terms.csv');
    const request = new Request('http://x', { method: 'POST', body: form });
    const body = Buffer.from(await request.arrayBuffer());
    expect(await keywordsInput(request.headers.get('content-type') ?? undefined, body)).toEqual({ id: 'l', category: 'word', searchTerms: ['x', 'y'], isCSV: true });
    expect(await keywordsInput('application/json', { id: 'l' })).toEqual({ id: 'l' });
    await expect(keywordsInput('multipart/form-data; boundary=b', Buffer.from('nope'))).rejects.toThrow(/multipart/);
  });
});
