import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

@Suite(.freshRegistry) struct DerivedUnwrappedTests {
  @Test func anUnwrappedValueKeepsTheLastNonNilValueWrittenByAnyone() {
    let profile = Shared<Int?>(value: 1)
    let unwrapped = Shared(profile)!
    profile.withLock { $0 = 2 }
    profile.withLock { $0 = nil }
    #expect(unwrapped.wrappedValue == 2)
  }
}
