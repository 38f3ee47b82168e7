// A snippet of the documentation that states a result, run as a test.
import Foundation
import Observation
import SharedState
import Testing

@Suite struct DiagnosticsSnippetTests {
  @Test func aRegistryUsedWithOneTypePerKeyHasNoDiagnostics() {
    let registry = SharedRegistry()
    // ... code that uses the registry ...
    #expect(registry.diagnostics.isEmpty)
  }
}
