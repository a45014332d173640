"""The mock web times a request by when its bytes reached the machine (the kernel's stamp), not
by when a handler thread got round to reading them: the politeness tests judge the crawler's
pace from this log, and a reader starved of the GIL on a loaded machine has read a request
line 0.115 s after the client sent it."""

from __future__ import annotations

import socket
import sys
import time

import pytest

from testing.mockweb import MockWeb, Route


def request(url: str) -> bytes:
    return f"GET {url} HTTP/1.1\r\nHost: slow.example.org\r\nUser-Agent: t\r\n\r\n".encode()


@pytest.mark.pacing  # judges the log's clock
@pytest.mark.skipif(sys.platform != "linux", reason="kernel receive timestamps (SO_TIMESTAMPNS) are Linux's")
def test_a_request_read_late_is_timed_by_its_arrival() -> None:
    with MockWeb() as web:
        web.route("http://slow.example.org/busy", Route(body="busy", delay=0.5))  # its reader is busy meanwhile
        web.route("http://slow.example.org/next", Route(body="next"))
        with socket.create_connection(("127.0.0.1", web.port)) as client:
            client.sendall(request("http://slow.example.org/busy"))
            time.sleep(0.1)  # the server has read the first request and is answering it
            sent = time.time()
            client.sendall(request("http://slow.example.org/next"))  # read ~0.4 s later, when the answer is done
            received = b""
            while received.count(b"HTTP/1.1 200") < 2 or not received.endswith(b"next"):
                received += client.recv(65536)
        entry = next(e for e in web.log if e.url.endswith("/next"))
    assert entry.t - sent > 0.3  # read late ...
    assert abs(entry.began - sent) < 0.05, (entry.began - sent, entry.t - sent)  # ... timed when it came
