"""Serve the app with waitress on a thread (port 0: any free one); its limits: docs/security.md."""

from __future__ import annotations

import logging
import threading

from waitress import wasyncore
from waitress.channel import HTTPChannel
from waitress.server import create_server

from web.security import BACKSTOP

log = logging.getLogger(__name__)

THREADS = 24  # each open page holds one for its event stream
FREE_THREADS = 8  # never taken by event streams: the page and the API answer however many are open
PER_ADDRESS = 16  # connections from one address at once (of waitress' 100): slowloris takes no more


class _Channel(HTTPChannel):
    """waitress' connection, closed at once when its address holds PER_ADDRESS already."""

    def __init__(self, server, sock, addr, adj, map=None):
        super().__init__(server, sock, addr, adj, map)
        host = addr[0] if isinstance(addr, tuple) else addr
        mine = sum(
            1
            for channel in list(server.active_channels.values())
            if isinstance(channel.addr, tuple) and channel.addr[0] == host
        )
        if mine > PER_ADDRESS:  # this one counted
            self.will_close = True


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
