import Foundation

/// A TCP proxy to the tests' server (a small Python program) that can freeze its first connection: from then on it
/// passes nothing in either direction and closes nothing, as a network partition leaves a connection half-open.
/// Later connections pass as usual.
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
    frozen = threading.Event()
    def commands():
        for line in sys.stdin:
            if line.strip() == "freeze":
                frozen.set()
                print("frozen", flush=True)
        os._exit(0)
    threading.Thread(target=commands, daemon=True).start()
    print(server.getsockname()[1], flush=True)
    def forward(source, sink, first):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if first and frozen.is_set():
                    continue
                sink.sendall(data)
        except OSError:
            pass
        if not (first and frozen.is_set()):
            try:
                sink.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
    count = 0
    while True:
        client, _ = server.accept()
        count += 1
        upstream = socket.create_connection(("127.0.0.1", target))
        for source, sink in ((client, upstream), (upstream, client)):
            threading.Thread(target=forward, args=(source, sink, count == 1), daemon=True).start()
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

  /// Freezes the first connection made through the proxy, and waits until it is.
  func freezeFirstConnection() async throws {
    input.write(Data("freeze\n".utf8))
    let lines = self.lines
    let answer = try await bounded(.seconds(20), "the proxy to freeze") { await lines.next() }
    guard answer == "frozen" else { throw ProxyFailed(output: answer) }
  }

  /// Stops the proxy (it ends when its input does; it is killed too, in case).
  func stop() {
    try? input.close()
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }
}
