import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// Options for tests: a manual clock, a one-minute gcTime, no retries.
func queryStoreOptions(_ clock: ManualClock, staleTime: Duration = .seconds(600)) -> QueryOptions {
  QueryOptions(staleTime: staleTime, gcTime: .seconds(60), operation: .retry(.none).clock(clock))
}

/// A backend that counts its fetches and can be held at a gate: its values are "fetch 1", "fetch 2", ...
final class GatedFetcher: Sendable {
  let fetches = Counter()
  private let gate = Lock<Gate?>(nil)

  /// Holds the fetches that start from now on until the returned gate opens, so that a test reads a fetch under
  /// way before it ends.
  func hold() -> Gate {
    let held = Gate()
    gate.withLock { $0 = held }
    return held
  }

  func fetch() async -> String {
    let number = fetches.increment()
    if let gate = gate.withLock({ $0 }) { await gate.wait() }
    return "fetch \(number)"
  }
}

/// A fetcher that counts its fetches per name, can hold the fetches that start (a held fetch sees its task's
/// cancellation at once), and fails while told to.
final class KeyedFetcher: Sendable {
  private let fetches = Lock<[String: Int]>([:])
  private let isHolding = Lock(false)
  private let isFailing = Lock(false)
  /// Held fetches sleep on this clock until it moves on.
  private let holdClock = ManualClock()

  /// Holds the fetches that start from now on, until ``release()``.
  func hold() {
    isHolding.withLock { $0 = true }
  }

  /// Lets the held fetches go on, and the later ones run at once.
  func release() {
    isHolding.withLock { $0 = false }
    holdClock.advance(by: .seconds(1_000))
  }

  /// Makes the fetches that start from now on fail (`true`) or succeed.
  func setFailing(_ failing: Bool) {
    isFailing.withLock { $0 = failing }
  }

  func count(_ name: String) -> Int {
    fetches.withLock { $0[name, default: 0] }
  }

  func fetch(_ name: String) async throws -> String {
    let number = fetches.withLock { fetches in
      fetches[name, default: 0] += 1
      return fetches[name, default: 0]
    }
    if isHolding.withLock({ $0 }) { try await holdClock.sleep(for: .seconds(1_000)) }
    if isFailing.withLock({ $0 }) { throw URLError(.notConnectedToInternet) }
    return "\(name) \(number)"
  }

  /// A query whose value stays fresh for ten minutes: a fetch is what the test asked for, not the value's age.
  func query(_ key: QueryKey, _ name: String, clock: ManualClock) -> Query<OperationState<String>> {
    .query(key, options: queryStoreOptions(clock)) { try await self.fetch(name) }
  }
}

/// A query held as a view holds it, and loaded: the store that keeps it, the clock it runs on, its backend and its
/// holder.
///
/// The holder is made here, in a plain function: Swift 6.3.1 can miscompile a property-wrapper default or an
/// `@autoclosure` argument in a closure that also holds `#expect`, so a test never builds one inside such a closure.
struct HeldQuery: Sendable {
  /// The store of the registry the query was held in.
  let store: QueryStore
  /// The clock of the query's options: its staleTime, gcTime and retries.
  let clock: ManualClock
  /// The query's backend: its values are "fetch 1", "fetch 2", ...
  let fetcher: GatedFetcher
  /// The query, as a second holder or a caller of the store names it.
  let query: Query<OperationState<String>>
  /// The holder.
  let holder: Shared<OperationState<String>>

  /// Holds the query named `key` of `fetcher` on `clock` (``queryStoreOptions(_:staleTime:)``) in the current
  /// registry, and waits until the holder shows the first fetch's value, "fetch 1".
  init(
    _ key: QueryKey = ["post"],
    staleTime: Duration = .seconds(600),
    clock: ManualClock = ManualClock(),
    fetcher: GatedFetcher = GatedFetcher()
  ) async {
    store = SharedRegistry.current.queries
    self.clock = clock
    self.fetcher = fetcher
    query = .query(key, options: queryStoreOptions(clock, staleTime: staleTime)) { await fetcher.fetch() }
    holder = Shared(wrappedValue: OperationState<String>(), query)
    await waitForValue(holder, "fetch 1")
  }
}

/// Waits until `shared` has settled on `value`.
func waitForValue(_ shared: Shared<OperationState<String>>, _ value: String) async {
  var values = shared.values.makeAsyncIterator()
  while let state = await values.next(), state.status != .success || state.value != value {}
}

/// Waits until the query shows a success with no fetch in flight (a refetch keeps the status success).
func waitForSettledSuccess<State: OperationTrackable>(_ shared: Shared<State>) async {
  var values = shared.values.makeAsyncIterator()
  while let state = await values.next(), !state.operation.status.isSuccess || state.operation.isFetching {}
}

/// A backend of pages whose fetches can be held at a gate.
final class PagesAPI: Sendable {
  let fetches = Counter()
  private let gate = Lock<Gate?>(nil)

  /// Holds the fetches that start from now on until the returned gate opens.
  func hold() -> Gate {
    let held = Gate()
    gate.withLock { $0 = held }
    return held
  }

  func page(_ number: Int) async throws -> String {
    fetches.increment()
    if let gate = gate.withLock({ $0 }) { await gate.wait() }
    return "page \(number)"
  }
}
