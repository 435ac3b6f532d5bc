// `setImmediate` for the web worker (the validation schedule, schedule.ts, runs a job after the
// messages already queued): a task of its own, as Node's is, via a message to a channel.
const scope = globalThis as unknown as { setImmediate?: (fn: () => void) => void; MessageChannel?: new () => MessageChannelLike };

interface MessageChannelLike {
  port1: { onmessage: (() => void) | null };
  port2: { postMessage(data: unknown): void };
}

if (typeof scope.setImmediate !== 'function') {
  const queue: (() => void)[] = [];
  const channel = scope.MessageChannel ? new scope.MessageChannel() : undefined;
  if (channel)
    channel.port1.onmessage = () => {
      const fn = queue.shift();
      fn?.();
    };
  scope.setImmediate = (fn) => {
    if (!channel) {
      setTimeout(fn, 0);
      return;
    }
    queue.push(fn);
    channel.port2.postMessage(0);
  };
}
