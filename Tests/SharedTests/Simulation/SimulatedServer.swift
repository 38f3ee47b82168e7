import Foundation
import TestSupport

@testable import SharedState

/// The server of a simulated program: every fetch and every mutation call waits until the simulation answers it.
///
/// A fetch or call sees its task's cancellation at once (it leaves the server with a `CancellationError`), so what
/// waits here is exactly what the store still runs. The server records each request that starts while it is told
/// the device is offline: work in the default network mode must not reach it then.
final class SimulatedServer: Sendable {
  struct Fetch {
    var id: Int
    var key: Int
    var generation: Int
    var startedAt: Int
    var continuation: CheckedContinuation<[Int], any Error>
  }

  struct Call {
    var id: Int
    var mutation: Int
    var key: Int
    var item: Int
    var continuation: CheckedContinuation<Int, any Error>
  }

  /// A fetch as the simulation sees it once answered.
  struct AnsweredFetch {
    var key: Int
    var generation: Int
    var startedAt: Int
    /// The data sent, or `nil` for an error.
    var data: [Int]?
  }

  struct Refused: Error {}

  private struct State {
    var step = 0
    var isOnline = true
    var nextID = 0
    var answers = 0
    var fetches: [Fetch] = []
    var calls: [Call] = []
    /// Requests that left before they were registered (cancelled as they started).
    var cancelled: Set<Int> = []
    /// Each query's data: its base and the items of the mutations the server applied.
    var data: [Int: [Int]] = [:]
    var offlineRequests: [String] = []
    var calledMutations: [Int: Int] = [:]
    /// How many fetches of each query reached the server.
    var startedFetches: [Int: Int] = [:]
    /// The data each query's last successful answer sent.
    var lastSent: [Int: [Int]] = [:]
  }

  private let state = Lock(State())
  /// Whether some answers repeat the data sent last for their query when it did not change (see ``answerFetch``).
  private let repeatsAnswers: Bool

  init(repeatsAnswers: Bool = false) {
    self.repeatsAnswers = repeatsAnswers
  }

  /// The step the program is at: fetches remember when they started.
  func setStep(_ step: Int) {
    state.withLock { $0.step = step }
  }

  func setOnline(_ isOnline: Bool) {
    state.withLock { $0.isOnline = isOnline }
  }

  /// Requests that reached the server while it was told the device is offline.
  var offlineRequests: [String] { state.withLock { $0.offlineRequests } }

  /// Whether the server applied `item` to some query's data (a mutation whose caller left may still have run: a
  /// `.dedupe` run goes on for the callers that joined it).
  func hasApplied(_ item: Int) -> Bool {
    state.withLock { state in state.data.values.contains { $0.contains(item) } }
  }

  /// How many times each mutation's call reached the server.
  var calledMutations: [Int: Int] { state.withLock { $0.calledMutations } }

  /// The fetches under way, oldest first: (key, generation).
  var fetchesUnderWay: [(key: Int, generation: Int)] {
    state.withLock { $0.fetches.map { ($0.key, $0.generation) } }
  }

  var callsUnderWay: Int { state.withLock { $0.calls.count } }

  /// The mutations whose calls wait here.
  var mutationsInFlight: [Int] { state.withLock { $0.calls.map(\.mutation) } }

  /// How many fetches of each query reached the server so far.
  var startedFetches: [Int: Int] { state.withLock { $0.startedFetches } }

  /// How many fetches of each query reached the server since `startedFetches` was `earlier`.
  func fetchesStarted(since earlier: [Int: Int]) -> [Int: Int] {
    startedFetches.reduce(into: [:]) { counts, entry in counts[entry.key] = entry.value - earlier[entry.key, default: 0]
    }
  }

  /// What the settling loop compares: the requests waiting here.
  var fingerprint: [Int] {
    state.withLock { state in state.fetches.map(\.id) + [-1] + state.calls.map(\.id) }
  }

  /// The fetcher of query `key`, for a query made while the model's generation of it is `generation`.
  func fetch(key: Int, generation: Int) async throws -> [Int] {
    let id = state.withLock { state in
      state.nextID += 1
      state.startedFetches[key, default: 0] += 1
      if !state.isOnline { state.offlineRequests.append("fetch of q\(key) at step \(state.step + 1)") }
      return state.nextID
    }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let wasCancelled = state.withLock { state in
          if state.cancelled.remove(id) != nil { return true }
          state.fetches.append(
            Fetch(id: id, key: key, generation: generation, startedAt: state.step, continuation: continuation))
          return false
        }
        if wasCancelled { continuation.resume(throwing: CancellationError()) }
      }
    } onCancel: {
      let fetch = state.withLock { state -> Fetch? in
        guard let index = state.fetches.firstIndex(where: { $0.id == id }) else {
          state.cancelled.insert(id)
          return nil
        }
        return state.fetches.remove(at: index)
      }
      fetch?.continuation.resume(throwing: CancellationError())
    }
  }

  /// The mutation `mutation`'s call, which applies `item` to query `key`'s data when the server accepts it.
  func call(mutation: Int, key: Int, item: Int) async throws -> Int {
    let id = state.withLock { state in
      state.nextID += 1
      state.calledMutations[mutation, default: 0] += 1
      if !state.isOnline { state.offlineRequests.append("call of mutation \(mutation) at step \(state.step + 1)") }
      return state.nextID
    }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let wasCancelled = state.withLock { state in
          if state.cancelled.remove(id) != nil { return true }
          state.calls.append(Call(id: id, mutation: mutation, key: key, item: item, continuation: continuation))
          return false
        }
        if wasCancelled { continuation.resume(throwing: CancellationError()) }
      }
    } onCancel: {
      let call = state.withLock { state -> Call? in
        guard let index = state.calls.firstIndex(where: { $0.id == id }) else {
          state.cancelled.insert(id)
          return nil
        }
        return state.calls.remove(at: index)
      }
      call?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Adds `item` to query `key`'s data, as an accepted call does: for the mutation queue's calls
  /// (`SimulatedQueueServer`).
  func apply(item: Int, key: Int) {
    state.withLock { state in
      var data = state.data[key, default: [100 * key]]
      if !data.contains(item) { data.append(item) }
      state.data[key] = data
    }
  }

  /// Answers the fetch picked by `pick` (modulo those under way): the query's data and a mark of this answer, or an
  /// error. Returns `nil` when no fetch is under way. A server that repeats answers sends, for an even `pick`, the
  /// very data of the query's last answer (its mark included) when the query's data did not change since: a value
  /// equal to the one the query shows, unless another answer or a write changed that.
  func answerFetch(pick: Int, succeeds: Bool) -> AnsweredFetch? {
    let repeatsAnswers = repeatsAnswers
    let taken = state.withLock { state -> (Fetch, [Int]?)? in
      guard !state.fetches.isEmpty else { return nil }
      let fetch = state.fetches.remove(at: pick % state.fetches.count)
      guard succeeds else { return (fetch, nil) }
      // The base of query k is [100 k]; a negative mark tells each answer apart.
      let base = state.data[fetch.key, default: [100 * fetch.key]]
      if repeatsAnswers, pick % 2 == 0, let last = state.lastSent[fetch.key], last.dropLast().elementsEqual(base) {
        return (fetch, last)
      }
      state.answers += 1
      let data = base + [-state.answers]
      state.lastSent[fetch.key] = data
      return (fetch, data)
    }
    guard let (fetch, data) = taken else { return nil }
    if let data {
      fetch.continuation.resume(returning: data)
    } else {
      fetch.continuation.resume(throwing: Refused())
    }
    return AnsweredFetch(key: fetch.key, generation: fetch.generation, startedAt: fetch.startedAt, data: data)
  }

  /// Answers the mutation call picked by `pick`; an accepted call adds its item to its query's data. Returns the
  /// mutation answered, or `nil` when no call is under way.
  func answerMutation(pick: Int, succeeds: Bool) -> Int? {
    let taken = state.withLock { state -> Call? in
      guard !state.calls.isEmpty else { return nil }
      let call = state.calls.remove(at: pick % state.calls.count)
      if succeeds {
        var data = state.data[call.key, default: [100 * call.key]]
        if !data.contains(call.item) { data.append(call.item) }
        state.data[call.key] = data
      }
      return call
    }
    guard let call = taken else { return nil }
    if succeeds {
      call.continuation.resume(returning: call.item)
    } else {
      call.continuation.resume(throwing: Refused())
    }
    return call.mutation
  }
}
