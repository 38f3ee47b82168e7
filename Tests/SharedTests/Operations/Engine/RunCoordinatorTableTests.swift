import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// The table of coordinators for members of a root keeps only the coordinators of runs under way.
@Suite(.freshRegistry) struct RunCoordinatorTableTests {
  @Test func runsOnAThousandElementsLeaveNoCoordinatorBehindOnceSettled() async throws {
    let list = Shared(value: Array(repeating: OperationState<Int>(), count: 1_000))
    var tasks: [OperationTask<Int>] = []
    for index in 0..<1_000 {
      tasks.append(list[dynamicMember: \.[index]].run { index })
    }
    for task in tasks { _ = try await task.value }
    tasks = []
    let coordinators = list.root.attachment(RunCoordinatorTable.self, make: RunCoordinatorTable.init)
    await waitUntil { coordinators.count == 0 }
    #expect(coordinators.count == 0)
    #expect(list.wrappedValue[999].value == 999)
  }
}
