// A helper for the file-fault tests: a separate process that writes one shared file until it is told to stop or is
// killed. Not part of the product.
//
//   FileFaultProbe write PATH NAME COUNT   save COUNT times (0: until killed); then create PATH.NAME.done, wait for
//                                          a line on standard input (every writer is done), and print the value it
//                                          ends on once it agrees with the file (the last writer's word)
//   FileFaultProbe save PATH COUNTER       save once, with `counter` set to COUNTER, and exit (traced by the
//                                          durability test)
//   FileFaultProbe persist-cache PATH TEXT persist a query cache in PATH, set one query to TEXT, flush, and exit
//                                          (traced by the persisted cache's durability test)
//   FileFaultProbe persist-cache-twice PATH TEXT  the same, then set a second query to TEXT and flush again: the
//                                          second write appends (traced by the append's durability test)
import Foundation
import SharedState

struct Document: Codable, Sendable, Equatable {
  var writer = ""
  var counter = 0
  /// Padding, so a torn write would be easy to catch.
  var padding = ""
}

let arguments = CommandLine.arguments
if arguments.count == 4, arguments[1] == "save", let counter = Int(arguments[3]) {
  let document = Shared(wrappedValue: Document(), .fileStorage(URL(fileURLWithPath: arguments[2]), saveDelay: .zero))
  document.withLock { $0 = Document(writer: "save", counter: counter) }
  do {
    try await document.save()
    exit(0)
  } catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
  }
}
if arguments.count == 4, arguments[1] == "persist-cache" || arguments[1] == "persist-cache-twice" {
  let store = SharedRegistry.current.queries
  await store.persistCache(QueryCachePersistence(persister: .file(URL(fileURLWithPath: arguments[2]))))
  let text = arguments[3]
  store.setFetchedValue(text, for: .query(["probe"]) { text })
  do {
    try await store.flushPersistedCache()
    if arguments[1] == "persist-cache-twice" {
      store.setFetchedValue(text, for: .query(["second"]) { text })
      try await store.flushPersistedCache()
    }
    exit(0)
  } catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
  }
}
guard arguments.count == 5, arguments[1] == "write", let count = Int(arguments[4]) else {
  FileHandle.standardError.write(Data("usage: FileFaultProbe write PATH NAME COUNT\n".utf8))
  exit(64)
}
let url = URL(fileURLWithPath: arguments[2])
let name = arguments[3]
let document = Shared(
  wrappedValue: Document(),
  .fileStorage(url, saveDelay: .zero, pollInterval: .milliseconds(20)))
var written = 0
while count == 0 || written < count {
  written += 1
  let step = written
  document.withLock { value in
    value.writer = name
    value.counter = step
    value.padding = String(repeating: name, count: 2_000)
  }
  try? await document.save()
}
// Tell the test this writer is done, and wait until every writer is.
_ = FileManager.default.createFile(atPath: url.path + ".\(name).done", contents: nil)
_ = readLine()
// Wait until what this process holds is what the file holds: both writers then agree on the last word. However
// long that takes on a busy machine; a writer that never agrees is ended by the test's time limit.
while true {
  if let data = try? Data(contentsOf: url), let onDisk = try? JSONDecoder().decode(Document.self, from: data),
    onDisk == document.wrappedValue
  {
    break
  }
  // The file's poll brings the other writer's last word; checking again at once would only take its processor.
  try? await Task.sleep(for: .milliseconds(5))
}
print("\(document.wrappedValue.writer) \(document.wrappedValue.counter)")
