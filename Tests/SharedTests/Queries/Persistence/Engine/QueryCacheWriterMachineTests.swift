import TestSupport
import Testing

@testable import SharedState

/// The persisted cache's writes, through every ordering of their events up to a small depth: changes, the throttle's
/// timer (including a timer that ends after a flush overtook it), writes that succeed or fail, flushes and their
/// cancellation.
// A search of one value type on one thread: off the cooperative pool so that it holds none of its threads, and
// skipped under ThreadSanitizer, which has nothing to find in it (plain `swift test` runs it in full).
@Suite(.offTheCooperativePool, .disabled(if: isThreadSanitizerBuild, "single-threaded search"))
struct QueryCacheWriterMachineTests {
  /// The machine, and what its actions did to the world: the timers started, the write running, the flushes.
  private struct World {
    var machine = QueryCacheWriterMachine<Int>()
    /// The timer the engine keeps (started, not cancelled).
    var timer: UInt64?
    /// Timers the engine cancelled or that ended: their task may still report, late, once each.
    var lateTimers: [UInt64] = []
    /// The newest change when the running write started.
    var writing: UInt64?
    /// The newest change a successful write stored.
    var stored: UInt64 = 0
    var changes: UInt64 = 0
    var writes = 0
    var timersStarted = 0
    var failuresLeft = 1
    var flushesLeft = 2
    var cancelsLeft = 1
    /// Flushes waiting, by id, with the newest change when each was asked.
    var waiting: [Int: UInt64] = [:]
    /// How each flush ended: `true` for success.
    var ended: [Int: [Bool]] = [:]
    var nextFlush = 1
    /// Flushes that ended with a failure, and the newest change the failed write covered.
    var failedFlushes: Set<Int> = []

    mutating func startTimer(_ id: UInt64) -> String? {
      if let timer { return "timer \(id) started while timer \(timer) runs" }
      timer = id
      timersStarted += 1
      return nil
    }

    mutating func startWrite() -> String? {
      if let writing { return "a write started while the write of \(writing) runs" }
      guard machine.latestChange > stored else { return "a write started with nothing new to store" }
      writing = machine.latestChange
      writes += 1
      return nil
    }

    mutating func writeEnded(succeeded: Bool) -> String? {
      guard let covers = writing else { return "a write ended while none ran" }
      writing = nil
      if succeeded { stored = max(stored, covers) }
      let action = machine.writeEnded(succeeded: succeeded)
      for waiter in action.resumed {
        guard let target = waiting.removeValue(forKey: waiter) else { return "flush \(waiter) resumed, not waiting" }
        if succeeded && stored < target { return "flush \(waiter) resumed before change \(target) was stored" }
        if !succeeded && covers < target { return "flush \(waiter) failed by a write that did not cover it" }
        ended[waiter, default: []].append(succeeded)
      }
      switch action.next {
      case .none: return nil
      case .startTimer(let id): return startTimer(id)
      case .write: return startWrite()
      }
    }

    /// Lets time pass and writes succeed until nothing is left to do; changes a failed write left are written by a
    /// last flush, as a program's flush at exit writes them.
    mutating func settle() -> String? {
      var flushed = false
      for _ in 0..<20 {
        if writing != nil {
          if let problem = writeEnded(succeeded: true) { return problem }
        } else if let id = timer {
          timer = nil
          if machine.timerEnded(id) == .write, let problem = startWrite() { return problem }
        } else if machine.hasUnwrittenChanges && !flushed {
          flushed = true
          guard machine.flushRequested(0, waiter: 0) == .write(cancellingTimer: nil) else {
            return "a flush with changes unwritten and nothing running did not write"
          }
          waiting[0] = machine.latestChange
          if let problem = startWrite() { return problem }
        } else {
          return nil
        }
      }
      return "the writer never settles"
    }
  }

  @Test func everyChangeIsStoredAndEveryFlushEndsInEveryOrdering() {
    let explored = exploreEveryOrdering(
      from: World(), depth: 9,
      events: { world in
        var events: [(name: String, apply: (inout World) -> String?)] = []
        if world.changes < 3 {
          events.append(
            (
              "change",
              { world in
                world.changes += 1
                guard case .startTimer(let id) = world.machine.changed() else { return nil }
                return world.startTimer(id)
              }
            ))
        }
        if let id = world.timer {
          events.append(
            (
              "timer \(id) ends",
              { world in
                world.timer = nil
                guard world.machine.timerEnded(id) == .write else { return "timer \(id) ended and wrote nothing" }
                return world.startWrite()
              }
            ))
        }
        for id in world.lateTimers {
          events.append(
            (
              "late timer \(id) ends",
              { world in
                world.lateTimers.removeAll { $0 == id }
                return world.machine.timerEnded(id) == .write ? "a cancelled timer started a write" : nil
              }
            ))
        }
        if world.writing != nil {
          events.append(("write succeeds", { $0.writeEnded(succeeded: true) }))
          if world.failuresLeft > 0 {
            events.append(
              (
                "write fails",
                { world in
                  world.failuresLeft -= 1
                  return world.writeEnded(succeeded: false)
                }
              ))
          }
        }
        if world.flushesLeft > 0 {
          events.append(
            (
              "flush",
              { world in
                world.flushesLeft -= 1
                let id = world.nextFlush
                world.nextFlush += 1
                switch world.machine.flushRequested(UInt64(id), waiter: id) {
                case .resume:
                  if world.stored < world.machine.latestChange { return "flush \(id) resumed with changes unstored" }
                  world.ended[id, default: []].append(true)
                  return nil
                case .wait:
                  world.waiting[id] = world.machine.latestChange
                  if world.writing == nil { return "flush \(id) waits with no write running" }
                  return nil
                case .write(let cancelled):
                  world.waiting[id] = world.machine.latestChange
                  if cancelled != world.timer {
                    return "flush \(id) cancelled timer \(cancelled as Any), not the one running"
                  }
                  if let timer = world.timer { world.lateTimers.append(timer) }
                  world.timer = nil
                  return world.startWrite()
                }
              }
            ))
        }
        if world.cancelsLeft > 0 {
          for id in world.waiting.keys.sorted() {
            events.append(
              (
                "cancel flush \(id)",
                { world in
                  world.cancelsLeft -= 1
                  guard case .resumeCancelled(let waiter) = world.machine.flushCancelled(UInt64(id)) else {
                    return "waiting flush \(id) was not found"
                  }
                  if waiter != id { return "cancelling flush \(id) resumed \(waiter)" }
                  world.waiting[id] = nil
                  world.ended[id, default: []].append(false)
                  return nil
                }
              ))
          }
        }
        return events
      },
      check: { world in
        if let twice = world.ended.first(where: { $0.value.count > 1 }) { return "flush \(twice.key) ended twice" }
        // Throttled: each write was started by a timer or asked for by a flush, never by a change alone.
        let flushes = world.nextFlush - 1
        if world.writes > world.timersStarted + flushes {
          return "\(world.writes) writes for \(world.timersStarted) timers"
        }
        // Whatever happened, letting time pass stores every change and ends every flush.
        var settled = world
        if let problem = settled.settle() { return problem }
        if settled.stored != settled.machine.latestChange {
          return "settled with change \(settled.machine.latestChange) unstored (stored \(settled.stored))"
        }
        if let waiting = settled.waiting.keys.min() { return "flush \(waiting) waits forever" }
        if settled.machine.phase != .idle { return "settled in \(settled.machine.phase)" }
        return nil
      })
    #expect(explored > 10_000)
  }

  @Test func changesWhileTheTimerRunsShareOneWrite() {
    var machine = QueryCacheWriterMachine<Int>()
    #expect(machine.changed() == .startTimer(1))
    #expect(machine.changed() == .none)
    #expect(machine.changed() == .none)
    #expect(machine.timerEnded(1) == .write)
    #expect(machine.phase == .writing(covers: 3, then: .rest))
    let ended = machine.writeEnded(succeeded: true)
    #expect(ended.next == .none)
    #expect(!machine.hasUnwrittenChanges)
  }

  @Test func aChangeDuringAWriteWaitsForANewInterval() {
    var machine = QueryCacheWriterMachine<Int>()
    _ = machine.changed()
    _ = machine.timerEnded(1)
    #expect(machine.changed() == .none)
    #expect(machine.writeEnded(succeeded: true).next == .startTimer(2))
    #expect(machine.hasUnwrittenChanges)
  }

  @Test func aFlushOvertakesTheTimerAndAFailedWriteFailsIt() {
    var machine = QueryCacheWriterMachine<Int>()
    _ = machine.changed()
    #expect(machine.flushRequested(1, waiter: 10) == .write(cancellingTimer: 1))
    #expect(machine.timerEnded(1) == .none)
    let ended = machine.writeEnded(succeeded: false)
    #expect(ended.resumed == [10])
    #expect(ended.next == .none)
    #expect(machine.hasUnwrittenChanges)
    // The next flush writes again at once.
    #expect(machine.flushRequested(2, waiter: 20) == .write(cancellingTimer: nil))
  }

  @Test func aFlushWithNothingUnwrittenResumesAtOnce() {
    var machine = QueryCacheWriterMachine<Int>()
    #expect(machine.flushRequested(1, waiter: 10) == .resume)
  }
}
