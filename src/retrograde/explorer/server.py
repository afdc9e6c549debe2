"""`retrograde explore`: the explorer's app served on a local port until Ctrl-C.

The socket is bound here, before the server is made, so that a port in use is one line and exit
74 (`exits.OS_ERROR_EXIT`: the cure is outside the command) rather than werkzeug's own message.
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Callable

from werkzeug.serving import WSGIRequestHandler, get_sockaddr, make_server, select_address_family

from retrograde.errors import RetrogradeError
from retrograde.exits import OS_ERROR_EXIT
from retrograde.explorer.app import Explorer, create_app


class ListenError(RetrogradeError):
    """The explorer cannot listen on the host and port asked for (in use, not this machine's)."""

    exit_code = OS_ERROR_EXIT


class _QuietHandler(WSGIRequestHandler):
    """No line per request: the terminal shows the URL and errors only."""

    def log_request(self, code="-", size="-") -> None:
        pass


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: a free one), or ListenError in one line."""
    family = select_address_family(host, port)
    try:
        sock = socket.socket(family, socket.SOCK_STREAM)
    except OSError as exc:
        raise ListenError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a port left in TIME_WAIT is free
        sock.bind(get_sockaddr(host, port, family))
        sock.listen(64)
    except OSError as exc:
        sock.close()
        why = (f"port {port} is in use: stop what uses it, or give another --port (0 picks a free one)"
               if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc)).lower())
        raise ListenError(f"cannot listen on {host}:{port}: {why}") from None
    return sock


def serve(store, *, host: str, port: int, agent_specs: str | None, say: Callable[[str], None]) -> None:
    """Serve the explorer of `store` (opened read-only) on host:port until Ctrl-C; `say` prints
    the URL (with the port the system chose for port 0)."""
    explorer = Explorer(store, agent_specs)
    sock = listen(host, port)
    server = make_server(host, sock.getsockname()[1], create_app(explorer), threaded=True,
                         request_handler=_QuietHandler, fd=sock.fileno())
    sock.close()  # the server holds its own duplicate of the socket
    shown = f"[{host}]" if ":" in host else host
    say(f"explorer of {store.game.describe()} (store {store.path}) at http://{shown}:{server.port}/ (Ctrl-C stops it)")
    try:
        server.serve_forever()  # it returns on Ctrl-C, the socket closed
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
