import Foundation
import Reactive
import Testing

@testable import SharedState

/// The queries made by one piece of code with one set of options share those options (their records keep a
/// reference, not a copy), and a registry gives back the room of the values it dropped.
@Suite(.freshRegistry) struct QueryDefinitionTests {
  private func query(
    _ key: QueryKey,
    options: QueryOptions? = nil
  ) -> Query<OperationState<String>> {
    .query(key, options: options) { "\(key)" }
  }

  private func definition(of key: QueryKey) -> QueryDefinition? {
    let record = SharedRegistry.current.queries.state.withLock { $0.root.node(at: key.parts)?.record }
    return (record as? QueryRecord<OperationState<String>>)?.definition
  }

  private func hold(_ query: Query<OperationState<String>>) async -> Shared<OperationState<String>> {
    let holder = Shared(wrappedValue: OperationState<String>(), query)
    for await state in holder.values where state.status.isSuccess { break }
    return holder
  }

  @Test func recordsOfOneDefinitionShareItsOptions() async throws {
    let clock = ManualClock()
    let options = QueryOptions(staleTime: .seconds(30), operation: .retry(.none).clock(clock))
    let first = await hold(query(["posts", 1], options: options))
    let second = await hold(query(["posts", 2], options: options))
    let shared = try #require(definition(of: ["posts", 1]))
    #expect(definition(of: ["posts", 2]) === shared)
    #expect(shared.options.staleTime == .seconds(30))
    withExtendedLifetime((first, second)) {}
  }

  @Test func queriesWithoutOptionsShareTheLibraryDefaults() async throws {
    let first = await hold(query(["feed", 1]))
    let second = await hold(query(["feed", 2]))
    let shared = try #require(definition(of: ["feed", 1]))
    #expect(definition(of: ["feed", 2]) === shared)
    #expect(shared.usesDefaultOptions)
    withExtendedLifetime((first, second)) {}
  }

  @Test func otherOptionsGetADefinitionOfTheirOwn() async throws {
    let clock = ManualClock()
    let short = QueryOptions(staleTime: .seconds(1), operation: .retry(.none).clock(clock))
    var long = short
    long.staleTime = .seconds(60)
    let first = await hold(query(["posts", 1], options: short))
    let second = await hold(query(["posts", 2], options: long))
    let third = await hold(query(["posts", 3], options: short))
    let one = try #require(definition(of: ["posts", 1]))
    let two = try #require(definition(of: ["posts", 2]))
    #expect(one !== two)
    #expect(two.options.staleTime == .seconds(60))
    // The last definition made at the location is the one reused: the third query gets one of its own again.
    #expect(try #require(definition(of: ["posts", 3])).options.staleTime == .seconds(1))
    withExtendedLifetime((first, second, third)) {}
  }

  @Test func optionsAreIdenticalOnlyWhenNothingTellsThemApart() {
    let clock = ManualClock()
    let options = QueryOptions(staleTime: .seconds(5), operation: .retry(.none).clock(clock))
    let copy = options
    #expect(options.isIdentical(to: copy))
    #expect(QueryOptions().isIdentical(to: QueryOptions()))
    // `.none` is one policy; others built apart may differ in their closures, so they are told apart.
    #expect(options.isIdentical(to: QueryOptions(staleTime: .seconds(5), operation: .retry(.none).clock(clock))))
    let retrying = OperationOptions.retry(.constant(retries: 1, delay: .seconds(1))).clock(clock)
    let again = OperationOptions.retry(.constant(retries: 1, delay: .seconds(1))).clock(clock)
    #expect(!QueryOptions(operation: retrying).isIdentical(to: QueryOptions(operation: again)))
    #expect(QueryOptions(operation: retrying).isIdentical(to: QueryOptions(operation: retrying)))
    // Clocks that are objects are told apart by identity.
    var otherClock = options
    otherClock.operation.clock = ManualClock()
    #expect(!options.isIdentical(to: otherClock))
    var otherGC = options
    otherGC.gcTime = .seconds(1)
    #expect(!options.isIdentical(to: otherGC))
    var disabled = options
    disabled.isEnabled = false
    #expect(!options.isIdentical(to: disabled))
    var timed = options
    timed.operation.timeout = .seconds(3)
    #expect(!options.isIdentical(to: timed))
  }

  @Test func aRegistryTableGivesBackTheRoomOfTheEntriesItDropped() {
    let table = RegistryTable<Int>()
    let boxes = (0..<4_096).map { ReactiveBox($0) }
    for (id, box) in boxes.enumerated() {
      table.entries[id] = RegistryEntry(reference: Shared<Int>.Reference.box(box), isPermanent: false, generation: 1)
    }
    let full = table.entries.capacity
    for id in 100..<4_096 {
      table.entries.removeValue(forKey: id)
      table.shrinkIfSparse()
    }
    #expect(table.entries.capacity < full / 8)
    #expect(table.entries.count == 100)
    #expect((0..<100).allSatisfy { table.entries[$0]?.object === boxes[$0] })
  }
}
