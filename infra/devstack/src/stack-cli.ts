import { startInfrastructure } from './infrastructure.js';
import { registerShutdown } from './processes.js';
import { startServices } from './services.js';

// `npm start`: the whole system on this machine, until Ctrl-C.
const began = Date.now();
const infra = await startInfrastructure();
let services: Awaited<ReturnType<typeof startServices>> | null = null;
// One hook, in order: the services first, then the infrastructure they use.
registerShutdown(async () => {
  await services?.stop();
  await infra.stop();
});
services = await startServices({
  kafkaBrokers: infra.kafkaBrokers,
  mongoUrl: infra.mongoUrl,
  redisUrl: infra.redisUrl,
  ports: 'fixed',
  ...(process.env['GATEWAY_PORT'] ? { gatewayPort: Number(process.env['GATEWAY_PORT']) } : {}),
  ...(process.env['MANAGEMENT_KEY'] ? { managementKey: process.env['MANAGEMENT_KEY'] } : {}),
  ...(process.env['MANAGEMENT_SECRET'] ? { managementSecret: process.env['MANAGEMENT_SECRET'] } : {}),
});

process.stdout.write(
  [
    '',
    `Chat platform is up (${((Date.now() - began) / 1000).toFixed(1)} s).`,
    `  gateway            ${services.gatewayUrl}   (chat API under /v3, tenant from the appId header)`,
    `  management key     ${services.managementKey}`,
    `  management secret  ${services.managementSecret}`,
    `  KAFKA_BROKERS=${infra.kafkaBrokers} MONGO_URL=${infra.mongoUrl} REDIS_URL=${infra.redisUrl}`,
    `  logs               ${services.logDir}`,
    '',
    'Create an app:',
    `  curl -s -X POST ${services.gatewayUrl}/apps -H 'key: ${services.managementKey}' -H 'secret: ${services.managementSecret}' \\`,
    `       -H 'content-type: application/json' -d '{"name":"my app","region":"us"}'`,
    '',
    'Press Ctrl-C to stop everything that was started.',
    '',
  ].join('\n'),
);
// Keep the process alive until a signal: the shutdown hook stops services, then infrastructure.
setInterval(() => undefined, 1 << 30);
