import { describe, expect, it } from 'vitest';
import { tenantHeaderRefusal, usableTenantHeaders } from './tenantHeaders.js';

describe('tenantHeaderRefusal', () => {
  it.each(['authorization', 'X-Api-Key', 'x-custom_header', "a!#$%&'*+.^_`|~z"])('accepts %s', (name) => {
    expect(tenantHeaderRefusal(name, 'Bearer abc def')).toBeNull();
  });

  it.each([
    ['x-chat-app-id', /platform's own/],
    ['X-Chat-Scope', /platform's own/],
    ['x-chat-management', /platform's own/],
    ['Connection', /hop-by-hop/],
    ['keep-alive', /hop-by-hop/],
    ['TE', /hop-by-hop/],
    ['trailer', /hop-by-hop/],
    ['Transfer-Encoding', /hop-by-hop/],
    ['upgrade', /hop-by-hop/],
    ['host', /hop-by-hop/],
    ['content-length', /hop-by-hop/],
    ['proxy-authorization', /proxy/],
    ['Proxy-Authenticate', /proxy/],
    ['proxy-anything', /proxy/],
    ['bad header', /not a valid header name/],
    ['x:y', /not a valid header name/],
    ['', /not a valid header name/],
  ])('refuses the name %s', (name, why) => {
    expect(tenantHeaderRefusal(name, 'v')).toMatch(why);
  });

  it.each(['a\r\nx-chat-scope: fullAccess', 'a\nb', 'nul\0', ' leading', 'trailing ', 'emoji 😀'])('refuses the value %j', (value) => {
    expect(tenantHeaderRefusal('x-token', value)).toMatch(/not a valid header value/);
  });

  it('leaves refused headers out at call time', () => {
    expect(usableTenantHeaders({ authorization: 'Bearer t', 'x-chat-scope': 'fullAccess', host: 'management', 'x-ok': 'a\r\nb' })).toEqual({ authorization: 'Bearer t' });
  });
});
