import TestSupport
import Testing

@testable import SharedState

/// The line of one mutation scope, through every ordering of its events up to a small depth.
// A search of one value type on one thread: off the cooperative pool so that it holds none of its threads, and
// skipped under ThreadSanitizer, which has nothing to find in it (plain `swift test` runs it in full).
@Suite(.offTheCooperativePool, .disabled(if: isThreadSanitizerBuild, "single-threaded search"))
struct MutationScopeStateMachineTests {
  @Test func mutationsOfAScopeGoOnOneAtATimeInCallOrderInEveryOrdering() {
    struct Model {
      var machine = MutationScopeStateMachine<UInt64>()
      var tickets: [UInt64] = []
      /// Tickets in the order their turn came (they went on).
      var wentOn: [UInt64] = []
      var waited: Set<UInt64> = []
      var left: Set<UInt64> = []
      var finished: Set<UInt64> = []
      var resumedCancelled: [UInt64: Int] = [:]
      var resumed: [UInt64: Int] = [:]
      /// The ticket whose turn came while it had not waited yet: it finds its turn when it waits.
      var turnCame: Set<UInt64> = []

      mutating func pass(_ action: MutationScopeStateMachine<UInt64>.FinishAction) -> String? {
        guard case .pass(let next, let waiter) = action else { return nil }
        if let waiter {
          guard waiter == next else { return "the turn of \(next) resumed \(waiter)" }
          resumed[waiter, default: 0] += 1
          wentOn.append(waiter)
        } else {
          turnCame.insert(next)
        }
        return nil
      }
    }
    let explored = exploreEveryOrdering(
      from: Model(), depth: 10,
      events: { model in
        var events: [(name: String, apply: (inout Model) -> String?)] = []
        if model.tickets.count < 3 {
          events.append(
            (
              "enqueue",
              { model in
                let ticket = UInt64(model.tickets.count + 1)
                model.tickets.append(ticket)
                if model.machine.enqueue(ticket) == .proceed {
                  model.wentOn.append(ticket)
                  model.waited.insert(ticket)  // A mutation whose turn is at once does not wait.
                }
                return nil
              }
            ))
        }
        for ticket in model.tickets where !model.waited.contains(ticket) {
          events.append(
            (
              "wait \(ticket)",
              { model in
                model.waited.insert(ticket)
                switch model.machine.wait(ticket, waiter: ticket) {
                case .proceed:
                  guard model.turnCame.remove(ticket) != nil else { return "ticket \(ticket) went on out of turn" }
                  model.wentOn.append(ticket)
                case .suspend: break
                case .cancelled: model.resumedCancelled[ticket, default: 0] += 1
                }
                return nil
              }
            ))
        }
        for ticket in model.tickets where !model.left.contains(ticket) && !model.finished.contains(ticket) {
          events.append(
            (
              "leave \(ticket)",
              { model in
                model.left.insert(ticket)
                if case .resumeCancelled(let waiter) = model.machine.leave(ticket) {
                  model.resumedCancelled[waiter, default: 0] += 1
                }
                return nil
              }
            ))
        }
        for ticket in model.wentOn where !model.finished.contains(ticket) {
          events.append(
            (
              "finish \(ticket)",
              { model in
                model.finished.insert(ticket)
                return model.pass(model.machine.finish(ticket))
              }
            ))
        }
        return events
      },
      check: { model in
        if model.wentOn != model.wentOn.sorted() { return "mutations went on out of call order: \(model.wentOn)" }
        let running = model.wentOn.filter { !model.finished.contains($0) }
        if running.count + model.turnCame.count > 1 { return "\(running) and \(model.turnCame) have the turn at once" }
        for ticket in model.tickets {
          let outcomes = model.wentOn.filter { $0 == ticket }.count + model.resumedCancelled[ticket, default: 0]
          if outcomes > 1 { return "ticket \(ticket) resumed \(outcomes) times" }
          // A mutation that left before its turn never goes on.
          if model.resumedCancelled[ticket] != nil && model.wentOn.contains(ticket) {
            return "ticket \(ticket) went on after it left"
          }
        }
        // Nobody waits forever: once every mutation ahead of a waiting one finished or left, it went on; one that
        // left while waiting was resumed.
        for ticket in model.waited where !model.wentOn.contains(ticket) && model.resumedCancelled[ticket] == nil {
          if model.left.contains(ticket) { return "ticket \(ticket) left, yet still waits" }
          let ahead = model.tickets.filter { $0 < ticket }
          let clear = ahead.allSatisfy {
            model.finished.contains($0)
              || (model.left.contains($0) && !model.wentOn.contains($0) && !model.turnCame.contains($0))
          }
          if clear { return "ticket \(ticket) waits forever" }
        }
        // Once everything went on and finished, or left, the scope is idle (and its line can go).
        let open = model.tickets.filter { !model.finished.contains($0) && !model.left.contains($0) }
        let holdsTurn = model.wentOn.contains { !model.finished.contains($0) } || !model.turnCame.isEmpty
        if open.isEmpty && !holdsTurn && !model.machine.isIdle { return "nothing is left, yet the scope is not idle" }
        return nil
      })
    #expect(explored > 5_000)
  }
}
