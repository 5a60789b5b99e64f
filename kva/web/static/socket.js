// One WebSocket path for every live page (game, lobby, quick game): connect, reconnect with
// exponential backoff, keep-alive ping, `hello` with the last version seen, JSON parsing and
// dispatch by message type. The pages only say what a message means.

/**
 * Open `/ws/...` at `path` on this host and keep it open.
 * options:
 *   on: {type: handler(msg)} (a message of another type goes to `on["*"]` if given)
 *   hello(): the `hello` message to send on every (re)connect, or null for none
 *   onState(state): "online" | "reconnecting" | "closed"
 *   reconnect(closeEvent): false to stay closed (a refusal); default: always reconnect
 *   ping: ms between pings (0: none); resyncOnVisible: send hello() when the tab comes back
 * Returns {send(msg) -> bool, close(), isOpen()}.
 */
export function openSocket(path, options = {}) {
  const { on = {}, hello = null, onState = () => {}, reconnect = () => true,
    ping = 25000, resyncOnVisible = false, minDelay = 300, maxDelay = 10000 } = options;
  let ws = null;
  let retry = 0;
  let retryTimer = null;
  let pingTimer = null;
  let stopped = false;

  const isOpen = () => ws !== null && ws.readyState === WebSocket.OPEN;
  function send(msg) {
    if (!isOpen()) return false;
    ws.send(JSON.stringify(msg));
    return true;
  }

  function connect() {
    clearTimeout(retryTimer);
    if (stopped) return;
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${proto}://${location.host}${path}`);
    ws = socket;
    socket.addEventListener("open", () => {
      retry = 0;
      onState("online");
      if (hello) send(hello());
      clearInterval(pingTimer);
      if (ping) pingTimer = setInterval(() => send({ type: "ping" }), ping);
    });
    socket.addEventListener("message", (e) => {
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      if (!msg || typeof msg !== "object") return;
      const handler = on[msg.type] || on["*"];
      if (handler) handler(msg);
    });
    socket.addEventListener("close", (e) => {
      if (ws !== socket) return; // an older socket, already replaced
      clearInterval(pingTimer);
      if (stopped || !reconnect(e)) {
        stopped = true;
        onState("closed");
        return;
      }
      onState("reconnecting");
      const delay = Math.min(maxDelay, minDelay * 2 ** retry) + Math.random() * 200;
      retry += 1;
      retryTimer = setTimeout(connect, delay);
    });
  }

  window.addEventListener("online", () => { if (!isOpen()) connect(); });
  if (resyncOnVisible && hello) {
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") send(hello());
    });
  }
  connect();
  return {
    send,
    isOpen,
    close() {
      stopped = true;
      clearTimeout(retryTimer);
      clearInterval(pingTimer);
      if (ws) ws.close();
    },
  };
}
