/**
 * Raw WebSocket senders: one frame per send, or all frames of one turn written together.
 */

/** Sends each frame on its own. */
export function perFrameSender(ws) {
  return (text) => ws.send(text);
}

/**
 * Queues frames and writes all frames queued in the same turn together, corking the underlying
 * socket so they leave in one write.
 */
export function coalescingSender(ws) {
  let queue = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const frames = queue;
    queue = [];
    const socket = ws._socket;
    socket.cork();
    for (let i = 0; i < frames.length; i++) ws.send(frames[i]);
    socket.uncork();
  };
  return (text) => {
    queue.push(text);
    if (!scheduled) {
      scheduled = true;
      queueMicrotask(flush);
    }
  };
}
