import pino, { type Logger } from 'pino';
import { vi } from 'vitest';

const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/**
 * Everything the app logs from now on, at every level and through every request's child logger
 * (req.log), kept here instead of written. Errors are kept as pino's serializer writes them:
 * with their message, their causes' messages and stacks, and their own fields, so a check that
 * something never reaches the log sees what the log would have held. `stop()` restores the logger
 * (and every other spy: vi.restoreAllMocks).
 */
export function captureLogs(logger: Logger) {
  const calls: { level: string; fields: unknown; msg: unknown }[] = [];
  const previous = logger.level;
  logger.level = 'trace';
  const capture = (target: Pick<Logger, (typeof levels)[number]>) => {
    for (const level of levels) {
      vi.spyOn(target, level).mockImplementation(((fields: unknown, msg?: unknown) => void calls.push({ level, fields, msg })) as never);
    }
  };
  const child = logger.child.bind(logger);
  vi.spyOn(logger, 'child').mockImplementation(((...args: Parameters<Logger['child']>) => {
    const made = child(...args);
    capture(made);
    return made;
  }) as never);
  capture(logger);
  return {
    calls,
    text: () => JSON.stringify(calls, (_key, value: unknown) => (value instanceof Error ? pino.stdSerializers.err(value) : value)),
    messages: () => calls.map((call) => call.msg),
    stop() {
      vi.restoreAllMocks();
      logger.level = previous;
    },
  };
}
