import assert from 'node:assert/strict';
import { test } from 'node:test';

/* eslint-disable @typescript-eslint/no-require-imports -- what is loaded, and when, is what is tested */

test("Nest's logger loads without building a date formatter, and its console logger still prints the time", () => {
  // Each spec file runs in its own process, and nothing above loads @nestjs/common.
  const built: unknown[] = [];
  const Real = Intl.DateTimeFormat;
  Intl.DateTimeFormat = new Proxy(Real, {
    construct(target, args: unknown[]) {
      built.push(args);
      return Reflect.construct(target, args) as object;
    },
  });
  const written: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  try {
    require('./nest-logger-preload');
    const { ConsoleLogger, Logger } = require('@nestjs/common') as typeof import('@nestjs/common');
    assert.equal(built.length, 0, 'no Intl.DateTimeFormat built while Nest loads');
    assert.equal(Intl.DateTimeFormat.name, Real.name, 'the global is put back');

    process.stdout.write = (chunk: string | Uint8Array) => written.push(String(chunk)) > 0;
    new ConsoleLogger('Spec', { colors: false }).log('hello');
    assert.match(Logger.getTimestamp(), new RegExp(String(new Date().getFullYear())));
  } finally {
    process.stdout.write = write;
    Intl.DateTimeFormat = Real;
  }
  assert.equal(built.length, 2, 'each of the two formatters is built at its first use');
  assert.match(written.join(''), new RegExp(`${new Date().getFullYear()}.*LOG \\[Spec\\] hello`));
});
