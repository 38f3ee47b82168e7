import Foundation
import TestSupport
import Testing

@testable import SharedState

/// What a launch does, in the order a program chooses.
private enum LaunchStep: CaseIterable, CustomStringConvertible {
  /// `persistCache` restores the cache from its file.
  case persistCache
  /// A screen holds the todos query.
  case hold
  /// The queue registers its mutation and restores its file.
  case restoreQueue

  var description: String {
    switch self {
    case .persistCache: "persistCache"
    case .hold: "holder"
    case .restoreQueue: "queue.restore()"
    }
  }
}

/// The todos an app shows after a relaunch, whatever the order of its launch steps.
private struct LaunchedApp {
  static let insert = OptimisticMutation { (title: String, cache: OptimisticCache) in
    cache.update(["todos"], as: OperationState<[String]>.self) { todos in
      todos.value?.append(title)
    }
  }

  /// The server's answer to "bad": it never changes.
  struct Refused: Error {}

  /// "bad" is refused for good at its first attempt.
  static let refusesBad = QueuedMutationRetryPolicy { $0 is Refused }

  let registry = SharedRegistry()
  var todos: Shared<OperationState<[String]>>?
  var queue: MutationQueue?
  var restore: QueryCacheRestore?

  /// Runs `steps` in a registry of its own, following `network` (offline: the held query does not fetch).
  static func launch(
    _ steps: [LaunchStep], cache: URL, queueFile: URL, network: ManualOnlineStatus
  ) async throws -> LaunchedApp {
    var app = LaunchedApp()
    let registry = app.registry
    registry.queries.onlineStatus = network
    for step in steps {
      switch step {
      case .persistCache:
        app.restore = await registry.queries.persistCache(
          QueryCachePersistence(persister: .file(cache), throttle: .zero))
      case .hold:
        app.todos = SharedRegistry.$current.withValue(registry) {
          Shared(wrappedValue: OperationState(), .query(["todos"]) { ["milk"] })
        }
      case .restoreQueue:
        let queue = SharedRegistry.$current.withValue(registry) {
          MutationQueue(file: queueFile, network: network)
        }
        queue.register(
          .mutation("add-todo"), invalidates: [["todos"]], retry: refusesBad, optimistic: insert
        ) { (title: String, _) in
          if title == "bad" { throw Refused() }
        }
        try queue.restore()
        app.queue = queue
      }
    }
    return app
  }

  /// The first run: the todos fetched and persisted, then "eggs" queued offline and saved; everything is freed on
  /// return, as at the end of a process.
  static func firstRun(cache: URL, queueFile: URL) async throws {
    try await endingAsAProcessEnds { try await firstRunBody(cache: cache, queueFile: queueFile) }
  }

  /// Runs `run`, which returns the app it launched, and returns once that app's queue is gone: a process that ends
  /// lets go of its queue's file at once, but in a test the queue goes only when its last task lets go of it, and a
  /// queue of the next launch is refused the file while it exists (one queue per file).
  static func endingAsAProcessEnds(_ run: () async throws -> LaunchedApp) async throws {
    weak var queue: MutationQueue?
    do {
      let app = try await run()
      queue = app.queue
    }
    await waitUntil { queue == nil }
  }

  private static func firstRunBody(cache: URL, queueFile: URL) async throws -> LaunchedApp {
    let network = ManualOnlineStatus(isOnline: true)
    let app = try await launch(
      [.persistCache, .hold, .restoreQueue], cache: cache, queueFile: queueFile, network: network)
    let todos = try #require(app.todos)
    _ = try await todos.fetchValue()
    let queue = try #require(app.queue)
    // Offline from here: the entry waits in the file.
    network.setOnline(false)
    try queue.enqueue("add-todo", "eggs")
    try await queue.flush()
    try await app.registry.queries.flushPersistedCache()
    return app
  }
}

extension LaunchedApp {
  /// The first run of a program whose "bad" gave up: its change undone, the cache and the queue's file saved.
  static func firstRunGivingUp(cache: URL, queueFile: URL) async throws {
    try await endingAsAProcessEnds { try await firstRunGivingUpBody(cache: cache, queueFile: queueFile) }
  }

  private static func firstRunGivingUpBody(cache: URL, queueFile: URL) async throws -> LaunchedApp {
    let network = ManualOnlineStatus(isOnline: true)
    let app = try await launch(
      [.persistCache, .hold, .restoreQueue], cache: cache, queueFile: queueFile, network: network)
    let todos = try #require(app.todos)
    _ = try await todos.fetchValue()
    let queue = try #require(app.queue)
    try queue.enqueue("add-todo", "bad")
    await waitUntil { queue.entries.isEmpty && queue.state.wrappedValue.failed.count == 1 }
    await waitUntil { todos.wrappedValue.value == ["milk"] }
    try await queue.flush()
    try await app.registry.queries.flushPersistedCache()
    return app
  }
}

/// A relaunch restores the persisted cache and the queue's entries whatever the order in which the program calls
/// `persistCache`, makes its holders and restores its queue: the restored todos show with the queued change.
@Suite(.freshRegistry) struct MutationQueueLaunchOrderTests {
  @Test(arguments: [
    [LaunchStep.persistCache, .hold, .restoreQueue],
    [.persistCache, .restoreQueue, .hold],
    [.hold, .persistCache, .restoreQueue],
    [.hold, .restoreQueue, .persistCache],
    [.restoreQueue, .persistCache, .hold],
    [.restoreQueue, .hold, .persistCache],
  ])
  fileprivate func aRelaunchShowsTheRestoredValueWithTheQueuedChangeInAnyOrder(_ order: [LaunchStep]) async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let cache = folder.file("queries.cache")
    let queueFile = folder.file("queue.json")
    try await LaunchedApp.firstRun(cache: cache, queueFile: queueFile)

    let network = ManualOnlineStatus(isOnline: false)
    do {
      let app = try await LaunchedApp.launch(order, cache: cache, queueFile: queueFile, network: network)
      #expect(app.restore?.problem == nil, "\(order)")
      #expect(app.restore?.restored == 1, "\(order)")
      #expect(app.queue?.entries.count == 1, "\(order)")
      #expect(app.todos?.wrappedValue.value == ["milk", "eggs"], "\(order)")
      try await app.registry.queries.flushPersistedCache()
    }
    // The cache keeps the confirmed value, without the queued change: a next launch restores it as it was.
    let next = try await LaunchedApp.launch([.persistCache], cache: cache, queueFile: queueFile, network: network)
    let stored = next.registry.queries.dehydrate().entries
    #expect(try stored.map { try $0.decodedValue(as: [String].self) } == [["milk"]], "\(order)")
  }

  /// An entry that gave up stays given up after a relaunch, whatever the order of the launch steps: its change is
  /// not shown again, and a retry shows it once.
  @Test(arguments: [
    [LaunchStep.persistCache, .hold, .restoreQueue],
    [.persistCache, .restoreQueue, .hold],
    [.hold, .persistCache, .restoreQueue],
    [.hold, .restoreQueue, .persistCache],
    [.restoreQueue, .persistCache, .hold],
    [.restoreQueue, .hold, .persistCache],
  ])
  fileprivate func aGivenUpEntryStaysUndoneAfterARelaunchInAnyOrder(_ order: [LaunchStep]) async throws {
    let folder = try TemporaryFolder()
    defer { folder.delete() }
    let cache = folder.file("queries.cache")
    let queueFile = folder.file("queue.json")
    try await LaunchedApp.firstRunGivingUp(cache: cache, queueFile: queueFile)

    let network = ManualOnlineStatus(isOnline: false)
    let app = try await LaunchedApp.launch(order, cache: cache, queueFile: queueFile, network: network)
    let queue = try #require(app.queue)
    #expect(app.restore?.restored == 1, "\(order)")
    #expect(queue.entries.isEmpty, "\(order)")
    let failed = try #require(queue.state.wrappedValue.failed.first, "\(order)")
    #expect(app.todos?.wrappedValue.value == ["milk"], "\(order)")
    #expect(queue.retry(failed.id), "\(order)")
    #expect(app.todos?.wrappedValue.value == ["milk", "bad"], "\(order)")
    try await app.registry.queries.flushPersistedCache()
  }
}
