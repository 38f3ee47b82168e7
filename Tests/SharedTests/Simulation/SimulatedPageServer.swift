import Foundation
import TestSupport

@testable import SharedState

/// The server of the paginated feed: each page fetch and each mutation call waits until the program answers it.
///
/// Page `p` holds `[10 p + 1, 10 p + 2]`, page 0 the items of the mutations it applied before them (newest first),
/// and each answer a mark of its own at the end (`-n` for the n-th answer), so that the model tells answers apart.
/// A feed has three pages.
final class SimulatedPageServer: Sendable {
  struct Fetch {
    var page: Int
    var continuation: CheckedContinuation<[Int], any Error>
  }

  struct Call {
    var mutation: Int
    var item: Int
    var continuation: CheckedContinuation<Int, any Error>
  }

  struct Refused: Error {}

  private struct State {
    var answers = 0
    var fetches: [Fetch] = []
    var calls: [Call] = []
    var applied: [Int] = []
    var calledMutations: Set<Int> = []
  }

  private let state = Lock(State())

  static let pageCount = 3

  /// The pages being fetched, oldest first.
  var fetchesUnderWay: [Int] { state.withLock { $0.fetches.map(\.page) } }
  var callsUnderWay: [Int] { state.withLock { $0.calls.map(\.mutation) } }
  var applied: [Int] { state.withLock { $0.applied } }
  var calledMutations: Set<Int> { state.withLock { $0.calledMutations } }

  func fetchPage(_ page: Int) async throws -> [Int] {
    try await withCheckedThrowingContinuation { continuation in
      state.withLock { $0.fetches.append(Fetch(page: page, continuation: continuation)) }
    }
  }

  func call(mutation: Int, item: Int) async throws -> Int {
    try await withCheckedThrowingContinuation { continuation in
      state.withLock { state in
        state.calledMutations.insert(mutation)
        state.calls.append(Call(mutation: mutation, item: item, continuation: continuation))
      }
    }
  }

  /// Answers the oldest page fetch; returns the page and its data (`nil` for an error), or `nil` if none waits.
  func answerFetch(succeeds: Bool) -> (page: Int, data: [Int]?)? {
    let taken = state.withLock { state -> (Fetch, [Int]?)? in
      guard !state.fetches.isEmpty else { return nil }
      let fetch = state.fetches.removeFirst()
      guard succeeds else { return (fetch, nil) }
      state.answers += 1
      let base = fetch.page == 0 ? state.applied.reversed() + [1, 2] : [10 * fetch.page + 1, 10 * fetch.page + 2]
      return (fetch, base + [-state.answers])
    }
    guard let (fetch, data) = taken else { return nil }
    if let data {
      fetch.continuation.resume(returning: data)
    } else {
      fetch.continuation.resume(throwing: Refused())
    }
    return (fetch.page, data)
  }

  /// Answers the mutation call picked by `pick`; returns the mutation, or `nil` if none waits.
  func answerMutation(pick: Int, succeeds: Bool) -> Int? {
    let taken = state.withLock { state -> Call? in
      guard !state.calls.isEmpty else { return nil }
      let call = state.calls.remove(at: pick % state.calls.count)
      if succeeds { state.applied.append(call.item) }
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
