import SharedState
import Testing

/// Each argument runs as its own test case; the trait gives every case a registry of its own, so each starts from
/// the default whatever the others wrote.
@Suite(.freshRegistry) struct FreshRegistryTraitTests {
  @Test(arguments: 1...4) func everyTestCaseStartsFromTheDefault(write: Int) {
    @Shared(.inMemory("trait-check")) var value = 0
    #expect(value == 0)
    $value.withLock { $0 = write }
    #expect(SharedRegistry.current.count == 1)
  }
}
