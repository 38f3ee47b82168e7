import Observation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

@Suite(.freshRegistry) struct SharedTests {
  @Test func holdersOfOneKeyShareOneValue() async {
    @Shared(.inMemory("count")) var first = 0
    @Shared(.inMemory("count")) var second = 0
    $first.withLock { $0 += 1 }
    #expect(second == 1)
    $second.withLock { $0 += 1 }
    #expect(first == 2)
  }

  @Test func aHundredHoldersSeeEveryChange() async {
    let holders = (0..<100).map { _ in Shared(wrappedValue: 0, .inMemory("count")) }
    let seen = (0..<100).map { _ in Collector<Int>() }
    let tokens = zip(holders, seen).map { holder, collector in holder.observe { collector.append($0) } }
    for holder in holders.prefix(10) { holder.withLock { $0 += 1 } }
    for (holder, collector) in zip(holders, seen) {
      #expect(holder.wrappedValue == 10)
      #expect(collector.elements == Array(1...10))
    }
    withExtendedLifetime(tokens) {}
  }

  @Test func aSecondDefaultIsIgnoredAndNotEvaluated() async {
    @Shared(.inMemory("name")) var first = "first"
    let evaluated = Lock(false)
    func secondDefault() -> String {
      evaluated.withLock { $0 = true }
      return "second"
    }
    @Shared(.inMemory("name")) var second = secondDefault()
    #expect(second == "first")
    #expect(!evaluated.withLock { $0 })
    withExtendedLifetime($first) {}
  }

  @Test func aTypeMismatchIsDiagnosedAndGetsItsOwnValue() async {
    let registry = SharedRegistry.current
    @Shared(.inMemory("mixed")) var number = 1
    @Shared(.inMemory("mixed")) var text = "text"
    #expect(text == "text")
    $text.withLock { $0 = "changed" }
    #expect(number == 1)
    let diagnostics = registry.diagnostics
    #expect(diagnostics.count == 1)
    let description = diagnostics.first?.description ?? ""
    #expect(description.contains(".inMemory(\"mixed\")"))
    #expect(description.contains("Swift.Int"))
    #expect(description.contains("Swift.String"))
    #expect(
      diagnostics.first?.kind == .typeMismatch(existing: "Swift.Int", requested: "Swift.String"))
  }

  @Test func inMemoryValuesOutliveTheirHolders() async {
    let registry = SharedRegistry.current
    do {
      @Shared(.inMemory("kept")) var kept = 0
      $kept.withLock { $0 = 42 }
    }
    @Shared(.inMemory("kept")) var again = 0
    #expect(again == 42)
    #expect(registry.count == 1)
  }

  @Test func registriesAreIsolated() {
    @Shared(.inMemory("isolated")) var value = 1
    $value.withLock { $0 = 2 }
    let elsewhere = inOtherRegistry { Shared(wrappedValue: 1, .inMemory("isolated")) }
    #expect(value == 2)
    #expect(elsewhere.wrappedValue == 1)
  }

  @Test func aKeylessValueIsFreedAfterItsLastHolder() {
    weak var root: AnyObject?
    do {
      let shared = Shared(value: 0)
      root = shared.rootObject
      let copy = shared
      copy.withLock { $0 += 1 }
      #expect(shared.wrappedValue == 1)
    }
    #expect(root == nil)
  }

  @Test func anIterationKeepsAValueAliveUntilItEnds() async {
    weak var root: ReactiveBox<Int>?
    let consumer: Task<Int, Never>
    do {
      let shared = Shared(value: 0)
      let strongRoot = shared.rootObject as! ReactiveBox<Int>
      root = strongRoot
      let values = shared.values
      consumer = Task {
        var count = 0
        for await _ in values { count += 1 }
        return count
      }
      await waitUntil { strongRoot.subscriberCount == 1 }
    }
    #expect(root != nil)
    consumer.cancel()
    #expect(await consumer.value == 1)
    #expect(root == nil)
  }

  @Test func projectedValuesAndValuesSequence() async {
    @Shared(.inMemory("count")) var count = 0
    let handle: Shared<Int> = $count
    var iterator = handle.values(buffering: .all).makeAsyncIterator()
    $count.withLock { $0 = 1 }
    $count.withLock { $0 = 2 }
    #expect(await iterator.next() == 0)
    #expect(await iterator.next() == 1)
    #expect(await iterator.next() == 2)
  }

  @Test func observationTracksReadsThroughAnyHolder() async {
    @Shared(.inMemory("tracked")) var tracked = 0
    let other = Shared(wrappedValue: 0, .inMemory("tracked"))
    let changes = Lock(0)
    _ = withObservationTracking {
      tracked
    } onChange: {
      changes.withLock { $0 += 1 }
    }
    other.withLock { $0 = 5 }
    #expect(changes.withLock { $0 } == 1)
  }

  @Test func aBodyReturningNilRunsOnce() {
    let shared = Shared(value: 0)
    let result: Int? = shared.withLock { value -> Int? in
      value += 1
      return nil
    }
    #expect(result == nil)
    #expect(shared.wrappedValue == 1)
  }

  @Test func anOptionalValueReadsNil() {
    let shared = Shared<Int?>(value: nil)
    #expect(shared.wrappedValue == nil)
    shared.withLock { $0 = 3 }
    #expect(shared.wrappedValue == 3)
  }

  @Test func aThrowingBodyKeepsItsWrites() {
    struct Refused: Error {}
    let shared = Shared(value: 1)
    #expect(throws: Refused.self) {
      try shared.withLock { value in
        value = 2
        throw Refused()
      }
    }
    #expect(shared.wrappedValue == 2)
  }
}
