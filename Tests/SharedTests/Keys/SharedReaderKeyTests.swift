import Foundation
import TestSupport
import Testing

@testable import SharedState

/// Reads any key through generic code, as a library built on this one would.
private func reader<Key: SharedReaderKey>(of key: Key, default value: Key.Value) -> SharedReader<Key.Value> {
  SharedReader(wrappedValue: value, key)
}

/// Which keys save, which only read, and what each holder of them gets.
@Suite(.freshRegistry) struct SharedReaderKeyTests {
  @Test func onlyKeysThatStoreChangesAreSharedKeys() throws {
    #expect(!(InMemoryKey<Int>("contract") as Any is any SharedKey))
    #expect(!(Query<OperationState<Int>>.query(["contract"]) { 1 } as Any is any SharedKey))
    #expect(!(RemoteReaderKey(name: "contract", store: RemoteStore<Int>()) as Any is any SharedKey))
    let file = FileStorageKey<Settings>(url: URL(filePath: "/tmp/contract.json"))
    #expect(file as Any is any SharedKey)
  }

  @Test func aReaderKeysHolderSeesTheLoadAndEveryStoreUpdate() async throws {
    let store = RemoteStore<Int>()
    @SharedReader(RemoteReaderKey(name: "flags", store: store)) var flags = 0
    #expect($flags.isLoading)
    try #require(await store.nextLoad()).resume(returning: 1)
    #expect(flags == 1)
    let context = try #require(store.contexts.elements.first)
    context.update(5)
    #expect(flags == 5)
    context.resetToDefault()
    #expect(flags == 0)
    let reload = Task { [$flags] in try await $flags.load() }
    try #require(await store.nextLoad()).resume(returning: 2)
    try await reload.value
    #expect(flags == 2)
  }

  @Test func aReaderMadeFirstOfAKeyThatSavesLetsALaterWriterSave() async throws {
    let store = SharedKeyTests.DictionaryKey.Store(initial: nil)
    let key = SharedKeyTests.DictionaryKey(name: "reader-first", store: store)
    let first = reader(of: key, default: 1)
    @Shared(key) var writer = 0
    #expect(writer == 1)
    $writer.withLock { $0 = 2 }
    try await $writer.save()
    #expect(store.values.elements == [2])
    #expect(first.wrappedValue == 2)
  }

  @Test func aReaderMadeFirstOfAnInMemoryKeyMakesTheSameBareValueAsAWriter() {
    let first = reader(of: InMemoryKey<Int>("bare"), default: 1)
    @Shared(.inMemory("bare")) var writer = 0
    #expect($writer.rootObject is ReactiveBox<Int>)  // No store, nothing to unregister: a bare box.
    $writer.withLock { $0 = 3 }
    #expect(first.wrappedValue == 3)
    #expect(!first.isLoading)
  }

  @Test func aReaderOfAQueryFetches() async {
    @SharedReader(.query(["contract", "reader"]) { 42 }) var answer = OperationState<Int>()
    var values = $answer.values.makeAsyncIterator()
    while let state = await values.next(), state.value != 42 {}
    #expect(answer.value == 42)
  }

  @Test func aReaderOfAQueryMadeThroughGenericCodeFetches() async {
    let answer = reader(of: .query(["contract", "generic"]) { @Sendable in 7 }, default: OperationState<Int>())
    var values = answer.values.makeAsyncIterator()
    while let state = await values.next(), state.value != 7 {}
    #expect(answer.wrappedValue.value == 7)
  }

  @Test func loadOfAValueWithNoStoreReturnsAtOnce() async throws {
    @Shared(.inMemory("no-store")) var counter = 0
    try await $counter.load()
    #expect(!$counter.isLoading)
    #expect($counter.loadError == nil)
    let keyless = Shared(value: 1)
    try await keyless.load()
    #expect(!keyless.isLoading)
  }
}
