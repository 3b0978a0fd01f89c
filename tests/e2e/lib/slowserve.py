#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""A TCP server on 127.0.0.1 that sends slowly: CHUNK bytes to each client
every EVERY_MS until it closes (or, with "http BYTES", an HTTP/1.0 answer
of BYTES to any request, sent the same way), and counts what it sent.

    slowserve.py PORT_FILE CHUNK EVERY_MS [http BYTES]

Binds an ephemeral port and writes it to PORT_FILE once it listens; on
SIGTERM prints {"sent": BYTES, "clients": N} and exits. The tests' stand-in
for a dataset served over the network: a client of it waits on the
network (curl, a loader's socket)."""
import json
import os
import signal
import socket
import sys
import threading
import time

path, chunk, every = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]) / 1000
http = int(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[4] == "http" else None
sent = [0]
clients = [0]
lock = threading.Lock()


def serve(conn):
    data = bytes(chunk)
    left = http
    with conn:
        try:
            if http is not None:
                conn.recv(65536)  # the request, whatever it asks
                conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: application/octet-stream\r\n"
                             b"Content-Length: %d\r\n\r\n" % http)
            while left is None or left > 0:
                part = data if left is None else data[:left]
                conn.sendall(part)
                with lock:
                    sent[0] += len(part)
                if left is not None:
                    left -= len(part)
                time.sleep(every)
        except OSError:
            pass


def done(*_):
    print(json.dumps({"sent": sent[0], "clients": clients[0]}), flush=True)
    os._exit(0)


signal.signal(signal.SIGTERM, done)
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(16)
with open(path + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(path + ".tmp", path)
while True:
    conn, _ = s.accept()
    clients[0] += 1
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
