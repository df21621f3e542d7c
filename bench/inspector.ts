// A Chrome DevTools Protocol session with a bench service's inspector (bench/alloc.ts and
// bench/memory.ts; the service opens it with `startService`'s `inspectPort`).

/** A Chrome DevTools Protocol session with the service's inspector. */
export async function connectInspector(port: number) {
  let list: { webSocketDebuggerUrl: string }[] = [];
  for (let attempt = 0; attempt < 50 && list.length === 0; attempt++) {
    try {
      list = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  if (list.length === 0) {
    throw new Error("Cannot reach the service's inspector");
  }
  const socket = new WebSocket(list[0].webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let id = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    waiting.get(message.id)?.(message.result);
    waiting.delete(message.id);
  };
  return {
    call(method: string, params: unknown = {}): Promise<unknown> {
      const callId = ++id;
      const answered = new Promise<unknown>((resolve) =>
        waiting.set(callId, resolve)
      );
      socket.send(JSON.stringify({ id: callId, method, params }));
      return answered;
    },
    close: () => socket.close(),
  };
}
