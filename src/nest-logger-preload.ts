import 'reflect-metadata';

/**
 * Loads Nest's logger with its date formatter built at first use instead of at load. Nest's
 * `Logger` and `ConsoleLogger` files each build an `Intl.DateTimeFormat` when they load, for the
 * timestamps of Nest's console output, which the router never prints (its logger is
 * `lifecycle/json-logger.ts`: JSON lines with ISO times). Building one reads ICU's locale,
 * calendar and time zone data: about 7.5 MiB resident for the life of the process, two thirds of
 * it pages of the `node` binary that nothing else touches (README, "Footprint").
 *
 * So the two files load here, first, while `Intl.DateTimeFormat` stands for a formatter built
 * with the same arguments at its first use; the global is put back before this module returns,
 * and no other code runs in between. Import this before anything that imports `@nestjs/common`
 * (the entry points and `app.factory.ts` do); once Nest's logger is loaded, it does nothing.
 */
const Eager = Intl.DateTimeFormat;

function deferredDateTimeFormat(locales?: string | string[], options?: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  let made: Intl.DateTimeFormat | undefined;
  const real = (): Intl.DateTimeFormat => (made ??= new Eager(locales, options));
  return new Proxy({} as Intl.DateTimeFormat, {
    get: (_target, key) => {
      const value: unknown = Reflect.get(real(), key);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(real()) : value;
    },
  });
}

Intl.DateTimeFormat = deferredDateTimeFormat as unknown as typeof Intl.DateTimeFormat;
try {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- must load while the stand-in is in place
  require('@nestjs/common/services/logger.service');
} finally {
  Intl.DateTimeFormat = Eager;
}
