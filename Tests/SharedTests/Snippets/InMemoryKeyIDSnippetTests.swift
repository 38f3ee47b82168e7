// A snippet of the documentation that states a result, run as a test.
import Foundation
import SharedState
import Testing

/// InMemoryKeyID's documentation: run as a test, so that its "true" is known to hold.
@Suite struct InMemoryKeyIDSnippetTests {
  @Test func namesAreOneValueWhateverTheType() {
    let sameValue = InMemoryKey<Int>("count").id == InMemoryKey<String>("count").id  // true
    #expect(sameValue)
  }
}
