import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

@Suite(.freshRegistry) struct DebouncePolicyTests {
  @Test func rapidTriggersRunOnceAfterTheQuietInterval() async throws {
    let clock = ManualClock()
    let search = Shared(value: OperationState<String>())
    let runs = Collector<String>()
    let settled = Collector<String>()
    var tasks: [OperationTask<String>] = []
    for query in ["s", "sw", "swi"] {
      tasks.append(
        search.run(.clock(clock), policy: .debounce(.milliseconds(300))) {
          runs.append(query)
          return "results for \(query)"
        } onSettled: { result in
          settled.append((try? result.get()) ?? "coalesced")
        })
    }
    await clock.waitForSleepers(3)
    clock.advance(by: .milliseconds(299))
    #expect(runs.elements.isEmpty)
    clock.advance(by: .milliseconds(1))
    #expect(try await tasks[2].value == "results for swi")
    for task in tasks.prefix(2) { _ = await task.result }
    #expect(runs.elements == ["swi"])
    #expect(settled.elements.filter { $0 == "coalesced" }.count == 2)
    #expect(search.wrappedValue.value == "results for swi")
  }

  @Test func anOlderDebouncedRunFinishingLastDoesNotOverwriteANewerOne() async throws {
    let clock = ManualClock()
    let search = Shared(value: OperationState<String>())
    let slow = Gate()
    let started = Counter()
    let ab = search.run(.clock(clock), policy: .debounce(.milliseconds(300))) {
      started.increment()
      await slow.wait()
      return "results for ab"
    }
    await clock.waitForSleepers()
    clock.advance(by: .milliseconds(300))
    await waitUntil { started.count == 1 }
    let abc = search.run(.clock(clock), policy: .debounce(.milliseconds(300))) { "results for abc" }
    await clock.waitForSleepers()
    clock.advance(by: .milliseconds(300))
    #expect(try await abc.value == "results for abc")
    slow.open()
    #expect(try await ab.value == "results for ab")
    #expect(search.wrappedValue.value == "results for abc")
    #expect(search.wrappedValue.status == .success)
  }
}
