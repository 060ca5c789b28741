"""Serve the app with waitress on a thread (port 0: any free one); its limits: docs/security.md."""

from __future__ import annotations

import logging
import threading
import time

from waitress import wasyncore
from waitress.channel import HTTPChannel
from waitress.server import create_server
from waitress.task import ErrorTask

from web.security import BACKSTOP, HEADERS

log = logging.getLogger(__name__)

THREADS = 24  # each open page holds one for its event stream
FREE_THREADS = 8  # never taken by event streams: the page and the API answer however many are open
CONNECTIONS = 100  # kept open at once; a new one past it closes the oldest that is not being answered
SPARE = 50  # past CONNECTIONS when every one is being answered: then waitress stops accepting
PER_ADDRESS = 16  # connections from one address at once: slowloris takes no more
REQUEST_SECONDS = 10.0  # a request must arrive whole within this of its first byte (or of the connection)


class _ErrorTask(ErrorTask):
    """waitress' own refusals (400, 413, 431, 501...), sent before the app sees the request, with the
    headers the app gives every answer."""

    def execute(self):
        self.response_headers.extend([*HEADERS.items(), ("Cache-Control", "no-store")])
        super().execute()


class _Channel(HTTPChannel):
    """waitress' connection, that no slow client keeps from another (docs/security.md, "Each limit and
    why"): closed at once past PER_ADDRESS, or when its request has not come whole in REQUEST_SECONDS;
    a new connection past CONNECTIONS closes the one whose request is the longest coming, else the
    longest idle (never one being answered, nor one whose answer is still being sent)."""

    error_task_class = _ErrorTask

    def __init__(self, server, sock, addr, adj, map=None):
        self.unfinished = time.time()  # since when a request is awaited whole (None: none is)
        super().__init__(server, sock, addr, adj, map)
        host = addr[0] if isinstance(addr, tuple) else addr
        others = [c for c in list(server.active_channels.values()) if c is not self and not c.will_close]
        if sum(1 for c in others if isinstance(c.addr, tuple) and c.addr[0] == host) >= PER_ADDRESS:
            self.will_close = True
        elif len(others) >= CONNECTIONS:
            idle = [c for c in others if not (c.requests or c.total_outbufs_len or c.close_when_flushed)]
            if idle:
                oldest = min(idle, key=lambda c: (c.unfinished is None, c.unfinished or c.last_activity))
                oldest.will_close = True

    def received(self, data):
        done = super().received(data)
        if self.request is None:  # what it sent came whole
            self.unfinished = None
        elif self.unfinished is None:
            self.unfinished = time.time()
        return done

    def readable(self):
        # waitress asks at least once a second (asyncore_loop_timeout); closing is its own next step.
        late = self.unfinished is not None and time.time() - self.unfinished > REQUEST_SECONDS
        if late and not self.requests:
            self.will_close = True
        return super().readable()


class Server:
    def __init__(self, app, host: str, port: int, threads: int = THREADS):
        self.app = app
        app.config["GRYB_MAX_STREAMS"] = max(1, threads - FREE_THREADS)
        # channel_request_lookahead: a stream ends when its client closes (waitress.client_disconnected).
        try:
            self._server = create_server(
                app,
                host=host,
                port=port,
                threads=threads,
                ident="gryb",
                max_request_body_size=BACKSTOP,
                clear_untrusted_proxy_headers=True,
                channel_timeout=60,
                connection_limit=CONNECTIONS + SPARE,
                asyncore_use_poll=True,
                channel_request_lookahead=1,
            )
        except ValueError:  # waitress' word for a host that does not resolve (a typo, an empty --host)
            raise OSError(f"the web page cannot listen on {host!r}: no such address") from None
        except OSError as err:  # the port in use, another machine's address: say which was chosen
            raise OSError(
                f"the web page cannot listen on {host} port {port}: {err.strerror or err}"
            ) from None
        self._server.channel_class = _Channel
        self.host, self.port = self._server.effective_host, int(self._server.effective_port)
        self._thread = threading.Thread(target=self._server.run, name="gryb-web", daemon=True)
        self._thread.start()
        log.info("web page on http://%s:%s/", self.host, self.port)

    @property
    def url(self) -> str:
        host = self.host if ":" not in self.host else f"[{self.host}]"
        return f"http://{host}:{self.port}"

    def close(self, timeout: float = 5.0) -> None:
        state = self.app.extensions.get("gryb")
        if state is not None:
            state.stopping.set()  # SSE streams end
        server = self._server
        socket_map = getattr(server, "map", None) or server._map
        server.task_dispatcher.shutdown(cancel_pending=True, timeout=timeout)
        wasyncore.close_all(socket_map)
        self._thread.join(timeout)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def serve(app, host: str = "127.0.0.1", port: int = 8080, threads: int = THREADS) -> Server:
    return Server(app, host, port, threads)
