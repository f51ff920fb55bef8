import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createApp } from './app.factory';
import { ConfigError } from './config/config.errors';
import { loadConfigFromEnvironment } from './config/config.module';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfigFromEnvironment();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    // Invalid config stops the process before anything starts (DESIGN §3).
    process.stderr.write(JSON.stringify({ level: 'fatal', context: 'Config', message: err.message, problems: err.problems }) + '\n');
    process.exit(78);
  }
  const app = await createApp(config);
  await app.listen(config.http.port, config.http.host);
  new Logger('Main').log({ msg: 'router listening', url: `${await app.getUrl()}/mcp`, startupMs: Math.round(process.uptime() * 1000) });
}

void main();
