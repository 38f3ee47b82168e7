import Synchronization

/// Timers on one system clock, all served by one sleeping task: starting a timer is an insert under a lock, and
/// cancelling it a removal, where a task per timer would cost a task made, scheduled, put to sleep and woken.
///
/// The attempts' timeouts use it (``AttemptTimer``): nearly every one is cancelled long before its deadline, so the
/// sleeping task wakes about once per timeout's length, at the earliest deadline it knows of, drops what was
/// cancelled and calls what is due. A new deadline earlier than the one it sleeps until starts a new sleeping task
/// and cancels the old one, so a mix of short and long timeouts leaves no sleeping task behind.
final class DeadlineQueue<C: Clock>: Sendable where C.Duration == Duration {
  private let clock: C
  private let state: Lock<State>

  private struct Entry: Comparable {
    let deadline: C.Instant
    let id: UInt64

    static func < (lhs: Entry, rhs: Entry) -> Bool {
      lhs.deadline < rhs.deadline || (lhs.deadline == rhs.deadline && lhs.id < rhs.id)
    }
  }

  private struct State {
    /// The actions of the timers not yet called nor cancelled, by identifier.
    var actions: [UInt64: @Sendable () -> Void] = [:]
    /// Every timer's deadline, earliest first (a binary heap). A cancelled timer's entry stays until it reaches the
    /// top, where the sleeping task drops it.
    var heap: [Entry] = []
    var nextID: UInt64 = 0
    /// The deadline the sleeping task sleeps until, and its generation; `nil` when none sleeps.
    var armed: C.Instant?
    var generation: UInt64 = 0
    /// The sleeping task of the latest generation (once it is made).
    var sleeper: Task<Void, Never>?
  }

  init(clock: C) {
    self.clock = clock
    state = Lock(State())
  }

  /// Calls `action` once `duration` has passed, unless ``cancel(_:)`` comes first.
  ///
  /// - Returns: The timer's identifier, for ``cancel(_:)``.
  func start(after duration: Duration, _ action: @escaping @Sendable () -> Void) -> UInt64 {
    let deadline = clock.now.advanced(by: duration)
    let (id, arm) = state.withLock { state -> (UInt64, UInt64?) in
      state.nextID += 1
      let id = state.nextID
      state.actions[id] = action
      Self.push(Entry(deadline: deadline, id: id), onto: &state.heap)
      Self.compactIfSparse(&state)
      if let armed = state.armed, armed <= deadline { return (id, nil) }
      state.armed = deadline
      state.generation += 1
      return (id, state.generation)
    }
    if let arm { sleep(until: deadline, generation: arm) }
    return id
  }

  /// Cancels the timer `id`: its action is not called, if it was not already.
  func cancel(_ id: UInt64) {
    // The action is let go after the lock.
    let action = state.withLock { $0.actions.removeValue(forKey: id) }
    withExtendedLifetime(action) {}
  }

  private func sleep(until deadline: C.Instant, generation: UInt64) {
    let task = Task.detached { [self] in
      try? await clock.sleep(until: deadline, tolerance: nil)
      wake(generation: generation)
    }
    // The sleeper it supersedes is cancelled; so is this one if a later generation came meanwhile. A cancelled
    // sleeper wakes at once, finds its generation gone, and ends.
    let superseded = state.withLock { state -> Task<Void, Never>? in
      guard state.generation == generation else { return task }
      defer { state.sleeper = task }
      return state.sleeper
    }
    superseded?.cancel()
  }

  /// Calls the actions that are due, then sleeps until the earliest deadline of a timer not cancelled.
  private func wake(generation: UInt64) {
    let now = clock.now
    let (due, next) = state.withLock { state -> ([@Sendable () -> Void], (C.Instant, UInt64)?) in
      guard state.generation == generation else { return ([], nil) }
      var due: [@Sendable () -> Void] = []
      while let top = state.heap.first {
        if let action = state.actions[top.id] {
          guard top.deadline <= now else { break }
          state.actions[top.id] = nil
          due.append(action)
        }
        Self.popTop(of: &state.heap)
      }
      guard let top = state.heap.first else {
        state.armed = nil
        return (due, nil)
      }
      state.armed = top.deadline
      state.generation += 1
      return (due, (top.deadline, state.generation))
    }
    if let next { sleep(until: next.0, generation: next.1) }
    for action in due { action() }
  }

  /// Rebuilds the heap from the timers not cancelled when cancelled entries outnumber them (timers cancelled
  /// behind a long one at the top).
  private static func compactIfSparse(_ state: inout State) {
    guard state.heap.count > 1_024, state.heap.count > 4 * state.actions.count else { return }
    let actions = state.actions
    state.heap.removeAll { actions[$0.id] == nil }
    state.heap.sort()
  }

  private static func push(_ entry: Entry, onto heap: inout [Entry]) {
    heap.append(entry)
    var child = heap.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard heap[child] < heap[parent] else { break }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  private static func popTop(of heap: inout [Entry]) {
    let last = heap.removeLast()
    guard !heap.isEmpty else { return }
    heap[0] = last
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallest = parent
      if left < heap.count, heap[left] < heap[smallest] { smallest = left }
      if right < heap.count, heap[right] < heap[smallest] { smallest = right }
      guard smallest != parent else { return }
      heap.swapAt(parent, smallest)
      parent = smallest
    }
  }
}
