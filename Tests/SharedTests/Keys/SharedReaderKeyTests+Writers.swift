import Foundation
import SharedState
import TestSupport
import Testing

/// A reader key and a writer key that name the same value: the value belongs to whichever kind made it.
extension SharedReaderKeyTests {
  /// A value a read-only key made has no way to save: a writer of it gets a value of its own and a diagnostic,
  /// instead of changes that are never saved and that the next load undoes.
  @Test func aWriterOfAValueAReadOnlyKeyMadeGetsAValueOfItsOwnAndADiagnostic() async throws {
    let store = RemoteStore<Int>()
    @SharedReader(RemoteReaderKey(name: "flags", store: store)) var flags = 0
    try #require(await store.nextLoad()).resume(returning: 1)
    #expect(flags == 1)

    @Shared(RemoteKey(name: "flags", store: store)) var writable = 0
    #expect(SharedRegistry.current.diagnostics.map(\.kind) == [.readOnlyValue(reader: "RemoteReaderKey<Int>")])
    $writable.withLock { $0 = 42 }
    try await $writable.save()
    #expect(flags == 1)  // the readers' value is untouched
    #expect(writable == 42)
  }

  /// The other way round, a reader of a value a writer made shares it.
  @Test func aReaderOfAValueAWriterMadeSharesIt() async throws {
    let store = RemoteStore<Int>()
    @Shared(RemoteKey(name: "flags", store: store)) var writable = 0
    try #require(await store.nextLoad()).resume(returning: 1)
    @SharedReader(RemoteReaderKey(name: "flags", store: store)) var flags = 0
    $writable.withLock { $0 = 42 }
    try await $writable.save()
    #expect(flags == 42)
    #expect(store.saves.elements == [42])
    #expect(SharedRegistry.current.diagnostics.isEmpty)
  }
}
