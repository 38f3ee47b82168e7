import Foundation

/// A TCP proxy to the tests' server (a small Python program) that can freeze connections: a frozen connection passes
/// nothing in either direction and closes nothing, as a network partition leaves a connection half-open. It can also
/// partition the path: every open connection freezes, and new ones are accepted and then hear nothing (a connect
/// that never completes), until the path heals; connections frozen stay frozen, as after a NAT dropped them.
/// Connections are numbered from 1 in the order they are made.
final class FreezingProxy: Sendable {
  private let process: Process
  private let input: FileHandle
  private let lines = LineBuffer()
  /// The port the proxy listens on, on 127.0.0.1.
  let port: Int

  private static let program = #"""
    import os, socket, sys, threading
    target = int(sys.argv[1])
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    lock = threading.Lock()
    frozen = set()
    held = []
    state = {"count": 0, "partitioned": False}
    def commands():
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            with lock:
                if words[0] == "freeze":
                    frozen.add(int(words[1]) if len(words) > 1 else 1)
                elif words[0] == "partition":
                    state["partitioned"] = True
                    frozen.update(range(1, state["count"] + 1))
                elif words[0] == "heal":
                    state["partitioned"] = False
                reply = "%s %d" % (words[0], state["count"])
            print(reply, flush=True)
        os._exit(0)
    threading.Thread(target=commands, daemon=True).start()
    print(server.getsockname()[1], flush=True)
    def is_frozen(number):
        with lock:
            return number in frozen
    def forward(source, sink, number):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if is_frozen(number):
                    continue
                sink.sendall(data)
        except OSError:
            pass
        if not is_frozen(number):
            try:
                sink.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
    def drain(client):
        try:
            while client.recv(65536):
                pass
        except OSError:
            pass
    while True:
        client, _ = server.accept()
        with lock:
            state["count"] += 1
            number = state["count"]
            partitioned = state["partitioned"]
            if partitioned:
                frozen.add(number)
                held.append(client)
        if partitioned:
            threading.Thread(target=drain, args=(client,), daemon=True).start()
            continue
        upstream = socket.create_connection(("127.0.0.1", target))
        for source, sink in ((client, upstream), (upstream, client)):
            threading.Thread(target=forward, args=(source, sink, number), daemon=True).start()
    """#

  /// Starts the proxy in front of `targetPort` and waits for its port.
  init(targetPort: Int) async throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", Self.program, String(targetPort)]
    let lines = self.lines
    self.input = try lines.run(process)
    self.process = process
    let line = try await bounded(.seconds(20), "the proxy's port") { await lines.next() }
    guard let line, let port = Int(line) else {
      process.terminate()
      throw ProxyFailed(output: line)
    }
    self.port = port
  }

  struct ProxyFailed: Error, CustomStringConvertible {
    var output: String?
    var description: String { "the proxy did not start (python3 answered \(output ?? "nothing"))" }
  }

  /// Sends `command` and waits for its answer; returns how many connections were made through the proxy so far.
  @discardableResult
  private func send(_ command: String) async throws -> Int {
    input.write(Data("\(command)\n".utf8))
    let lines = self.lines
    let answer = try await bounded(.seconds(20), "the proxy's answer to \(command)") { await lines.next() }
    let words = answer?.split(separator: " ") ?? []
    guard words.count == 2, command.hasPrefix(words[0]), let count = Int(words[1]) else {
      throw ProxyFailed(output: answer)
    }
    return count
  }

  /// Freezes the first connection made through the proxy, and waits until it is.
  func freezeFirstConnection() async throws {
    try await freeze(connection: 1)
  }

  /// Freezes the connection numbered `connection` (from 1, in the order they were made), and waits until it is.
  func freeze(connection: Int) async throws {
    try await send("freeze \(connection)")
  }

  /// How many connections were made through the proxy so far.
  func connectionCount() async throws -> Int {
    try await send("count")
  }

  /// Partitions the path: every open connection freezes, and new ones hear nothing until ``heal()``.
  func partition() async throws {
    try await send("partition")
  }

  /// Heals the path: new connections pass again (the frozen ones stay frozen).
  func heal() async throws {
    try await send("heal")
  }

  /// Stops the proxy (it ends when its input does; it is killed too, in case).
  func stop() {
    try? input.close()
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }
}
