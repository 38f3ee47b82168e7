import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// An observer of a derived value (a member, a selection, a reader's member, an unwrapped optional) starts from the
/// value its parent had when it was registered, so it hears every change after that, a change back included.
///
/// Each test widens the gap a registration could leave between reading the starting value and registering: the
/// derived value's getter, the first time it runs, changes the parent. If the registration reads the starting value
/// through the getter before it registers, that change reaches nobody and the observer compares later changes with
/// a stale value; then the test's change back to it is never heard. If not, the getter first runs later, and its
/// change is heard like any other.
@Suite(.freshRegistry, .timeLimit(.minutes(10))) struct DerivedObserverTests {
  @Test func aMembersObserverHearsAChangeBackAfterAChangeMadeWhileItRegistered() {
    let gap = ChangeOnFirstRead()
    let counter = Shared(value: Counter(count: 0, gap: gap))
    gap.arm { counter.withLock { $0.count = 1 } }
    let heard = Collector<Int>()
    let token = counter.countOnceChanging.observe { heard.append($0) }
    _ = counter.countOnceChanging.wrappedValue  // The getter's first run, unless the registration made it.
    #expect(counter.wrappedValue.count == 1)
    counter.withLock { $0.count = 0 }
    #expect(heard.elements.last == 0)
    token.cancel()
  }

  @Test func aSelectionsObserverHearsAChangeBackAfterAChangeMadeWhileItRegistered() {
    let gap = ChangeOnFirstRead()
    let counter = Shared(value: Counter(count: 0, gap: gap))
    gap.arm { counter.withLock { $0.count = 1 } }
    let selection = counter.select { $0.countOnceChanging }
    let heard = Collector<Int>()
    let token = selection.observe { heard.append($0) }
    _ = selection.wrappedValue
    #expect(counter.wrappedValue.count == 1)
    counter.withLock { $0.count = 0 }
    #expect(heard.elements.last == 0)
    token.cancel()
  }

  @Test func aReadersMemberObserverHearsAChangeBackAfterAChangeMadeWhileItRegistered() {
    let gap = ChangeOnFirstRead()
    let counter = Shared(value: Counter(count: 0, gap: gap))
    gap.arm { counter.withLock { $0.count = 1 } }
    let member: SharedReader<Int> = SharedReader(counter).countReadOnce
    let heard = Collector<Int>()
    let token = member.observe { heard.append($0) }
    _ = member.wrappedValue
    #expect(counter.wrappedValue.count == 1)
    counter.withLock { $0.count = 0 }
    #expect(heard.elements.last == 0)
    token.cancel()
  }

  @Test func anUnwrappedObserverHearsAChangeBackAfterAChangeMadeWhileItRegistered() throws {
    let gap = ChangeOnFirstRead()
    let slot = Shared(value: Slot(counter: Counter(count: 0, gap: gap), gap: gap))
    // Made before the gap is armed: making it reads the optional once.
    let unwrapped = try #require(Shared(slot.counterOnceChanging))
    gap.arm { slot.withLock { $0.counter?.count = 1 } }
    let heard = Collector<Int>()
    let token = unwrapped.observe { heard.append($0.count) }
    _ = unwrapped.wrappedValue
    #expect(slot.wrappedValue.counter?.count == 1)
    slot.withLock { $0.counter?.count = 0 }
    #expect(heard.elements.last == 0)
    token.cancel()
  }

  @Test func aNestedMembersObserverHearsAChangeBackAfterAChangeMadeWhileItRegistered() {
    let gap = ChangeOnFirstRead()
    let team = Shared(value: Team(lead: Counter(count: 0, gap: gap), gap: gap))
    gap.arm { team.withLock { $0.lead.count = 1 } }
    let count: Shared<Int> = team.leadOnceChanging.count
    let heard = Collector<Int>()
    let token = count.observe { heard.append($0) }
    _ = count.wrappedValue
    #expect(team.wrappedValue.lead.count == 1)
    team.withLock { $0.lead.count = 0 }
    #expect(heard.elements.last == 0)
    token.cancel()
  }

  @Test func anObserverStillSkipsChangesThatLeaveItsValueEqual() {
    let gap = ChangeOnFirstRead()
    let counter = Shared(value: Counter(count: 0, gap: gap))
    let heard = Collector<Int>()
    let token = counter.countOnceChanging.observe { heard.append($0) }
    counter.withLock { $0.count = 0 }
    counter.withLock { $0.count = 2 }
    counter.withLock { $0.count = 2 }
    #expect(heard.elements == [2])
    token.cancel()
  }
}

/// Runs the action it is armed with once, the first time a getter asks it to.
private final class ChangeOnFirstRead: Sendable {
  private let action = Mutex<(@Sendable () -> Void)?>(nil)

  func arm(_ action: @escaping @Sendable () -> Void) {
    self.action.withLock { $0 = action }
  }

  /// Runs the armed action, once, after its lock.
  func read() {
    action.withLock { $0.take() }?()
  }
}

private struct Counter: Sendable, Equatable {
  var count: Int
  let gap: ChangeOnFirstRead

  /// `count`, through a getter that runs the gap's action the first time.
  var countOnceChanging: Int {
    get {
      gap.read()
      return count
    }
    set { count = newValue }
  }

  /// `count`, through a read-only getter that runs the gap's action the first time.
  var countReadOnce: Int {
    gap.read()
    return count
  }

  static func == (lhs: Counter, rhs: Counter) -> Bool { lhs.count == rhs.count }
}

private struct Slot: Sendable {
  var counter: Counter?
  let gap: ChangeOnFirstRead

  /// `counter`, through a getter that runs the gap's action the first time.
  var counterOnceChanging: Counter? {
    get {
      gap.read()
      return counter
    }
    set { counter = newValue }
  }
}

private struct Team: Sendable {
  var lead: Counter
  let gap: ChangeOnFirstRead

  /// `lead`, through a getter that runs the gap's action the first time.
  var leadOnceChanging: Counter {
    get {
      gap.read()
      return lead
    }
    set { lead = newValue }
  }
}
