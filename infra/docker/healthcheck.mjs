// The image's HEALTHCHECK: healthy while the service's /readyz answers 200 (its store, producer and
// consumer group work; ADR 0028). The port is the one the service listens on: PORT, or for the
// gateway its admin port (GATEWAY_ADMIN_PORT, where /readyz is answered when set) or GATEWAY_PORT,
// else the default the image was built with (service.json beside this file).
import { readFileSync } from 'node:fs';

const { service, port: defaultPort } = JSON.parse(readFileSync(new URL('./service.json', import.meta.url), 'utf8'));
const env = process.env;
const port = service === 'gateway' ? env.GATEWAY_ADMIN_PORT || env.GATEWAY_PORT || defaultPort : env.PORT || defaultPort;
try {
  const response = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_500) });
  process.exit(response.ok ? 0 : 1);
} catch {
  process.exit(1);
}
