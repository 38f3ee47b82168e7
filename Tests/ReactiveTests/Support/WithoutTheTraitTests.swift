import TestSupport
import Testing

@Suite struct WithoutTheTraitTests {
  @Test func aTestBodyRunsOnTheCooperativePool() {
    #expect(!isOffTheCooperativePool)
  }
}
