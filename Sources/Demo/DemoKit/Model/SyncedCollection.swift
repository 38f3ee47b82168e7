import Foundation
import SharedState

/// A todo.
struct Todo: Sendable, Equatable, Identifiable, Codable {
  var id: Int
  var title: String
  var isDone = false
}

/// A collection kept in step with a server: the items, the changes not pushed yet, and how the latest sync went.
struct SyncedCollection<T: Sendable & Equatable & Identifiable>: OperationTrackable, Equatable where T.ID: Sendable {
  var items: [T] = []
  /// Items changed here and not pushed yet.
  var pendingIDs: Set<T.ID> = []
  var operation = OperationTracking()
  var lastSyncedAt: Date?

  var isSyncing: Bool { !pendingIDs.isEmpty || operation.status.isPending }

  /// Adds or replaces an item locally; it stays pending until the next sync.
  mutating func upsert(_ item: T) {
    if let index = items.firstIndex(where: { $0.id == item.id }) { items[index] = item } else { items.append(item) }
    pendingIDs.insert(item.id)
  }

  mutating func applySuccess(_ synced: [T]) {
    items = synced
    pendingIDs = []
    lastSyncedAt = Date()
  }
}

extension Shared where Value == SyncedCollection<Todo> {
  /// Pushes the pending todos and takes the server's list.
  @discardableResult
  func sync(
    isolation: isolated (any Actor)? = #isolation,
    onSuccess: (([Todo]) -> Void)? = nil,
    onError: ((any Error) -> Void)? = nil
  ) -> OperationTask<[Todo]> {
    let backend = DemoEnvironment.current.content
    let pending = wrappedValue.items.filter { wrappedValue.pendingIDs.contains($0.id) }
    return run(
      .retry(.constant(retries: 2, delay: .zero)), policy: .serial, isolation: isolation,
      { try await backend.push(pending) }, onSuccess: onSuccess, onError: onError)
  }
}

/// Post data for the queries scenario.
struct Post: Sendable, Equatable {
  var id: Int
  var title: String
}

/// Settings kept in a file between runs.
struct DemoSettings: Codable, Sendable, Equatable {
  var runs = 0
  var lastScenario = "none"
}
