import SharedState
import Testing

@Suite(.freshRegistry) struct ExportsTests {
  @Test func importingSharedGivesTheReactiveBox() {
    let box = ReactiveBox(1)
    box.withLock { $0 += 1 }
    #expect(box.value == 2)
  }
}
