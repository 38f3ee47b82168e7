import Foundation
import TestSupport

@testable import SharedState

/// The server's side of the mutation queue in a simulated program: every queued mutation's call waits until the
/// simulation answers it, and the server records which entry ran, in which launch of the app and at which step, to
/// check the queue's promises (in order, at least once, again only after a restart and at most once, never once a
/// discard is written).
///
/// An accepted call applies its item to the query's data on the main `SimulatedServer`, so fetches bring it.
final class SimulatedQueueServer: Sendable {
  /// The arguments of a queued entry: its number in the program, its query and its item.
  struct Edit: Codable, Hashable, Sendable {
    var entry: Int
    var key: Int
    var item: Int
  }

  struct Call {
    var id: Int
    var launch: Int
    var edit: Edit
    var continuation: CheckedContinuation<Int, any Error>
  }

  /// A call that reached the server.
  struct Run: Sendable {
    var entry: Int
    var launch: Int
    var step: Int
  }

  private struct State {
    var step = 0
    var isOnline = true
    var nextID = 0
    var calls: [Call] = []
    var cancelled: Set<Int> = []
    /// The launches the app was killed in: their calls are refused before they reach the server.
    var dead: Set<Int> = []
    var runs: [Run] = []
    /// The entries the server applied, in order, with the launch that sent each.
    var applied: [(entry: Int, launch: Int)] = []
    var offlineCalls: [String] = []
  }

  private let state = Lock(State())
  private let server: SimulatedServer

  init(server: SimulatedServer) {
    self.server = server
  }

  func setStep(_ step: Int) { state.withLock { $0.step = step } }
  func setOnline(_ isOnline: Bool) { state.withLock { $0.isOnline = isOnline } }

  /// Every call that reached the server.
  var runs: [Run] { state.withLock { $0.runs } }
  /// The entries applied, in order.
  var applied: [(entry: Int, launch: Int)] { state.withLock { $0.applied } }
  var offlineCalls: [String] { state.withLock { $0.offlineCalls } }

  /// The entries whose calls of `launch` wait here.
  func callsUnderWay(launch: Int) -> [Int] {
    state.withLock { state in state.calls.filter { $0.launch == launch }.map(\.edit.entry) }
  }

  var fingerprint: [Int] {
    state.withLock { state in state.calls.map(\.id) + [-1, state.runs.count, state.applied.count] }
  }

  /// The queued mutation's call, from the app's launch `launch`.
  func call(_ edit: Edit, launch: Int) async throws -> Int {
    let id = try state.withLock { state in
      guard !state.dead.contains(launch) else { throw SimulatedServer.Refused() }
      state.nextID += 1
      state.runs.append(Run(entry: edit.entry, launch: launch, step: state.step))
      if !state.isOnline { state.offlineCalls.append("queued entry \(edit.entry) at step \(state.step)") }
      return state.nextID
    }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let wasCancelled = state.withLock { state in
          if state.cancelled.remove(id) != nil { return true }
          state.calls.append(Call(id: id, launch: launch, edit: edit, continuation: continuation))
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

  /// Answers the call of `launch` picked by `pick`; an accepted one applies its item. Returns the entry answered.
  @discardableResult
  func answer(pick: Int, succeeds: Bool, launch: Int) -> Int? {
    let taken = state.withLock { state -> Call? in
      let indices = state.calls.indices.filter { state.calls[$0].launch == launch }
      guard !indices.isEmpty else { return nil }
      let call = state.calls.remove(at: indices[pick % indices.count])
      if succeeds { state.applied.append((call.edit.entry, launch)) }
      return call
    }
    guard let call = taken else { return nil }
    if succeeds {
      server.apply(item: call.edit.item, key: call.edit.key)
      call.continuation.resume(returning: call.edit.item)
    } else {
      call.continuation.resume(throwing: SimulatedServer.Refused())
    }
    return call.edit.entry
  }

  /// The app of `launch` is killed: its calls under way end (applied first when `applies`, the answer lost), and
  /// any call it still makes is refused before it reaches the server.
  func kill(launch: Int, applies: Bool) {
    let calls = state.withLock { state -> [Call] in
      state.dead.insert(launch)
      let calls = state.calls.filter { $0.launch == launch }
      state.calls.removeAll { $0.launch == launch }
      if applies { state.applied += calls.map { ($0.edit.entry, launch) } }
      return calls
    }
    for call in calls {
      if applies { server.apply(item: call.edit.item, key: call.edit.key) }
      call.continuation.resume(throwing: SimulatedServer.Refused())
    }
  }

  /// What the server saw that breaks the queue's promises, given the entries whose discard was written by step
  /// `discardWritten[entry]` and discarded in launch and step `discarded[entry]`.
  func brokenPromise(discarded: [Int: (launch: Int, step: Int)], discardWritten: [Int: Int]) -> String? {
    let (runs, applied) = state.withLock { ($0.runs, $0.applied) }
    for run in runs {
      if let written = discardWritten[run.entry], run.step > written {
        return "queued entry \(run.entry) ran at step \(run.step), though its discard was written at step \(written)"
      }
      if let discard = discarded[run.entry], discard.launch == run.launch, run.step >= discard.step {
        return "queued entry \(run.entry) ran at step \(run.step), after it was discarded at step \(discard.step)"
      }
    }
    // In order; again only as the first of a later launch (the one running when the app was killed).
    var done: Set<Int> = []
    var latest = -1
    var previousLaunch = -1
    for (index, application) in applied.enumerated() {
      let isFirstOfLaunch = application.launch != previousLaunch
      previousLaunch = application.launch
      if done.contains(application.entry) {
        let earlier = applied[..<index].filter { $0.entry == application.entry }
        if !isFirstOfLaunch || earlier.contains(where: { $0.launch == application.launch }) {
          return "queued entry \(application.entry) was applied again in the same launch, or not first after a restart "
            + "(applied: \(applied.map { "e\($0.entry)@\($0.launch)" }))"
        }
        continue
      }
      if application.entry < latest {
        return "queued entry \(application.entry) was applied after entry \(latest), queued later "
          + "(applied: \(applied.map { "e\($0.entry)@\($0.launch)" }))"
      }
      done.insert(application.entry)
      latest = application.entry
    }
    return nil
  }
}
