// A helper for the exit tests: a separate process that sets a file-backed value and ends in one of several ways
// before the value's save delay (an hour) has passed. Not part of the product.
//
//   ExitProbe return PATH VALUE   set the value to VALUE and end by returning from the top-level code (status 0)
//   ExitProbe busy PATH VALUE     the same, but first keep every thread of the cooperative pool busy, and end with
//                                 exit(0) while they stay busy
//   ExitProbe term PATH VALUE     ask the library to handle SIGTERM and SIGINT, set the value, print "ready" and
//                                 wait for a signal
//   ExitProbe launch PATH VALUE   first thing at launch, ask the library to handle SIGTERM and SIGINT, and as soon
//                                 as that call returns send itself SIGTERM; then set the value, print "sent" and
//                                 wait (for the signal to end the process)
//   ExitProbe kill PATH VALUE     set the value to VALUE and flush it, then set it to VALUE + 1, print "ready" and
//                                 wait (to be killed with SIGKILL)
//   ExitProbe cache-remove PATH VALUE       persist a query cache in PATH (its throttle an hour), set the query
//                                           ["kept"] to VALUE and ["removed"] to another, flush the cache, then
//                                           remove ["removed"] (nothing else changes), and end with exit(0)
//   ExitProbe cache-remove-term PATH VALUE  the same, but first ask the library to handle SIGTERM and SIGINT, and
//                                           after the removal print "ready" and wait for a signal
//   ExitProbe cache-churn PATH VALUE        persist a query cache in PATH, then for n = VALUE, VALUE + 1, ... set
//                                           the queries ["n"] and ["k", n % 50] to n, flush the cache and print n,
//                                           until it is killed
//   ExitProbe cache-pages PATH VALUE        persist a query cache in PATH (its throttle an hour), load VALUE pages
//                                           of the paginated query ["feed"] (page N holds "item N"), and end with
//                                           exit(0) (the exit writes the pages)
//   ExitProbe hold-cache PATH VALUE         persist a query cache in PATH, set the query ["held"] to VALUE and flush
//                                           it, print "ready" and wait (to be killed); if the file is in use, print
//                                           "in use: " and the problem, and end with exit status 75
//   ExitProbe hold-queue PATH VALUE         open a mutation queue in PATH (offline) and restore it, print "ready"
//                                           and wait (to be killed); if the file is in use, print "in use: " and the
//                                           error, and end with exit status 75
import Foundation
import SharedState
import Synchronization

let arguments = CommandLine.arguments
guard arguments.count == 4, let value = Int(arguments[3]) else {
  FileHandle.standardError.write(
    Data(
      ("usage: ExitProbe return|busy|term|launch|kill|cache-remove|cache-remove-term|cache-churn|hold-cache|hold-queue"
        + "|cache-pages PATH VALUE\n").utf8))
  exit(64)
}
let mode = arguments[1]
if mode == "launch" {
  // Started as a shell or a supervisor starts a program, with no signal blocked: the test runner's thread that
  // started this process blocks them, and a blocked signal would stay pending until the handler takes it.
  var terminations = sigset_t()
  sigemptyset(&terminations)
  sigaddset(&terminations, SIGTERM)
  sigaddset(&terminations, SIGINT)
  pthread_sigmask(SIG_UNBLOCK, &terminations, nil)
  // Before anything else has started the dispatch machinery: the call's work is all still to do.
  SharedRegistry.flushOnTermination()
  kill(getpid(), SIGTERM)
}
if mode == "cache-remove" || mode == "cache-remove-term" {
  if mode == "cache-remove-term" { SharedRegistry.flushOnTermination() }
  let store = SharedRegistry.current.queries
  // A throttle no test waits for: every write after the first flush is made by the flush at exit or at SIGTERM.
  await store.persistCache(
    QueryCachePersistence(persister: .file(URL(fileURLWithPath: arguments[2])), throttle: .seconds(3_600)))
  let kept = arguments[3]
  store.setFetchedValue(kept, for: .query(["kept"]) { kept })
  store.setFetchedValue("user data", for: .query(["removed"]) { "user data" })
  do {
    try await store.flushPersistedCache()
  } catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
  }
  store.remove(.exactly(["removed"]))
  if mode == "cache-remove-term" {
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    while true { pause() }
  }
  exit(0)
}
if mode == "cache-churn" {
  let store = SharedRegistry.current.queries
  // A throttle no test waits for: every write is made by a flush, so each printed number is one acknowledged write.
  let restore = await store.persistCache(
    QueryCachePersistence(persister: .file(URL(fileURLWithPath: arguments[2])), throttle: .seconds(3_600)))
  if let problem = restore.problem { FileHandle.standardError.write(Data("restore: \(problem)\n".utf8)) }
  var next = value
  while true {
    let written = next
    store.setFetchedValue(written, for: .query(["n"]) { written })
    store.setFetchedValue(written, for: .query(["k", written % 50]) { written })
    do {
      try await store.flushPersistedCache()
    } catch {
      FileHandle.standardError.write(Data("\(error)\n".utf8))
      exit(1)
    }
    FileHandle.standardOutput.write(Data("\(written)\n".utf8))
    next += 1
  }
}
if mode == "cache-pages" {
  let store = SharedRegistry.current.queries
  // A throttle no test waits for: the pages are written by the flush at exit.
  await store.persistCache(
    QueryCachePersistence(persister: .file(URL(fileURLWithPath: arguments[2])), throttle: .seconds(3_600)))
  let nextPage: @Sendable ([String], Int) -> Int? = { _, id in id + 1 < value ? id + 1 : nil }
  let feed = Shared(
    wrappedValue: PaginatedState<Int, [String]>(),
    .paginatedQuery(["feed"], initialPage: 0, nextPage: nextPage, options: QueryOptions(staleTime: .seconds(3_600))) {
      id in ["item \(id)"]
    })
  do {
    _ = try await feed.fetchValue()
    while feed.wrappedValue.hasNextPage { _ = try await feed.fetchNextPage()?.value }
  } catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
  }
  exit(0)
}
if mode == "hold-cache" {
  let store = SharedRegistry.current.queries
  let restore = await store.persistCache(QueryCachePersistence(persister: .file(URL(fileURLWithPath: arguments[2]))))
  if let problem = restore.problem, case .inUse = problem {
    FileHandle.standardOutput.write(Data("in use: \(problem)\n".utf8))
    exit(75)
  }
  let held = arguments[3]
  store.setFetchedValue(held, for: .query(["held"]) { held })
  do {
    try await store.flushPersistedCache()
  } catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
  }
  FileHandle.standardOutput.write(Data("ready\n".utf8))
  while true { pause() }
}
if mode == "hold-queue" {
  let queue = MutationQueue(file: URL(fileURLWithPath: arguments[2]), network: ManualOnlineStatus(isOnline: false))
  do {
    try queue.restore()
  } catch {
    guard case .fileInUse = error else {
      FileHandle.standardError.write(Data("\(error)\n".utf8))
      exit(1)
    }
    FileHandle.standardOutput.write(Data("in use: \(error)\n".utf8))
    exit(75)
  }
  FileHandle.standardOutput.write(Data("ready\n".utf8))
  withExtendedLifetime(queue) {
    while true { pause() }
  }
}
// A delay no test waits for: every save these tests see is made by a flush.
let counter = Shared(wrappedValue: 0, .fileStorage(URL(fileURLWithPath: arguments[2]), saveDelay: .seconds(3_600)))

/// Prints `line` at once: standard output is a pipe, where `print` would keep it in a buffer.
func tell(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Waits on this thread (the main one, outside the pool) until the process is ended from outside.
func waitToBeEnded() -> Never {
  while true { pause() }
}

/// How many endless tasks have started.
final class StartedTasks: Sendable {
  let count = Atomic<Int>(0)
}

switch mode {
case "return":
  counter.withLock { $0 = value }
case "busy":
  // As many endless tasks as the pool has threads, and more: none of them ever gives its thread back.
  let started = StartedTasks()
  let spinners = ProcessInfo.processInfo.activeProcessorCount + 2
  for _ in 0..<spinners {
    Task.detached {
      started.count.add(1, ordering: .relaxed)
      while true { _ = started.count.load(ordering: .relaxed) }
    }
  }
  // The pool's threads are all taken once as many tasks as it has threads run; the others wait for a thread.
  while started.count.load(ordering: .relaxed) < ProcessInfo.processInfo.activeProcessorCount {}
  counter.withLock { $0 = value }
  exit(0)
case "term":
  SharedRegistry.flushOnTermination()
  counter.withLock { $0 = value }
  tell("ready")
  waitToBeEnded()
case "launch":
  counter.withLock { $0 = value }
  tell("sent")
  waitToBeEnded()
case "kill":
  counter.withLock { $0 = value }
  do {
    try await SharedRegistry.current.flush()
  } catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
  }
  counter.withLock { $0 = value + 1 }
  tell("ready")
  waitToBeEnded()
default:
  FileHandle.standardError.write(Data("unknown mode \(mode)\n".utf8))
  exit(64)
}
