// Waits for a promise at most a bounded time, without leaving a timer behind.

/** `promise`'s value when it settles within `ms`, else `{ settled: false }` (it may still settle later). */
export async function settledWithin<T>(
  promise: Promise<T>,
  ms: number,
): Promise<{ settled: true; value: T } | { settled: false }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<{ settled: false }>((resolve) => {
    timer = setTimeout(() => resolve({ settled: false }), ms);
  });
  try {
    return await Promise.race([
      promise.then((value) => ({ settled: true as const, value })),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
