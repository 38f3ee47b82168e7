#!/usr/bin/env python3
"""A stand-in OpenTelemetry collector for the observability example's check: it takes OTLP/HTTP trace exports on
127.0.0.1, decodes the spans' ids, parents and names from the protobuf by hand, and writes one line per span.

    python3 .ci/otlp-collector.py PORT SPANS_FILE
"""
import gzip
import http.server
import sys


def fields(data):
    """The (number, wire type, value) fields of one protobuf message."""
    index = 0
    while index < len(data):
        key, index = varint(data, index)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, index = varint(data, index)
        elif wire == 1:
            value, index = data[index:index + 8], index + 8
        elif wire == 2:
            length, index = varint(data, index)
            value, index = data[index:index + length], index + length
        elif wire == 5:
            value, index = data[index:index + 4], index + 4
        else:
            raise ValueError(f"wire type {wire}")
        yield number, wire, value


def varint(data, index):
    result, shift = 0, 0
    while True:
        byte = data[index]
        index += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, index
        shift += 7


def spans(request):
    """ExportTraceServiceRequest: resource_spans(1) > scope_spans(2) > spans(2): trace_id(1), span_id(2),
    parent_span_id(4), name(5)."""
    for number, _, resource_spans in fields(request):
        if number != 1:
            continue
        for number, _, scope_spans in fields(resource_spans):
            if number != 2:
                continue
            for number, _, span in fields(scope_spans):
                if number != 2:
                    continue
                found = {1: b"", 2: b"", 4: b"", 5: b""}
                for field, _, value in fields(span):
                    if field in found:
                        found[field] = value
                yield found[1].hex(), found[2].hex(), found[4].hex() or "-", found[5].decode()


class Collector(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        if self.path.endswith("/v1/traces"):
            with open(sys.argv[2], "a") as out:
                for trace, span, parent, name in spans(body):
                    out.write(f"{trace} {span} {parent} {name}\n")
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *arguments):
        pass


http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Collector).serve_forever()
