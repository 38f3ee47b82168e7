import Observation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

@Suite(.freshRegistry) struct DerivedSharedTests {
  @Test func writingAMemberWritesTheParentAndNotifiesIt() async {
    @Shared(.inMemory("user")) var user = User(name: "Ada", age: 36)
    let parentChanges = Collector<User>()
    let token = $user.observe { parentChanges.append($0) }
    let name: Shared<String> = $user.name
    name.withLock { $0 = "Grace" }
    #expect(user.name == "Grace")
    #expect(name.wrappedValue == "Grace")
    #expect(parentChanges.elements == [User(name: "Grace", age: 36)])
    @Shared(.inMemory("user")) var sameUser = User(name: "", age: 0)
    #expect(sameUser.name == "Grace")
    token.cancel()
  }

  @Test func aMembersValuesSkipChangesThatLeaveItEqual() async {
    let user = Shared(value: User(name: "Ada", age: 36))
    var names = user.name.values(buffering: .all).makeAsyncIterator()
    user.withLock { $0.age += 1 }
    user.withLock { $0.name = "Grace" }
    user.withLock { $0.age += 1 }
    user.withLock { $0.name = "Hedy" }
    #expect(await names.next() == "Ada")
    #expect(await names.next() == "Grace")
    #expect(await names.next() == "Hedy")
  }

  @Test func aMembersObserverSkipsChangesThatLeaveItEqual() {
    let user = Shared(value: User(name: "Ada", age: 36))
    let ages = Collector<Int>()
    let token = user.age.observe { ages.append($0) }
    user.withLock { $0.name = "Grace" }
    user.withLock { $0.age = 40 }
    user.withLock { $0.name = "Hedy" }
    #expect(ages.elements == [40])
    token.cancel()
  }

  @Test func nestedMembers() {
    struct Team: Sendable { var lead: User }
    let team = Shared(value: Team(lead: User(name: "Ada", age: 36)))
    team.lead.age.withLock { $0 += 1 }
    #expect(team.wrappedValue.lead.age == 37)
  }

  @Test func aReaderReadsAndListensButCannotWrite() async {
    let user = Shared(value: User(name: "Ada", age: 36))
    let reader = SharedReader(user)
    let nameLength: SharedReader<Int> = reader.name.count
    #expect(nameLength.wrappedValue == 3)
    var lengths = nameLength.values(buffering: .all).makeAsyncIterator()
    user.withLock { $0.name = "Grace" }
    #expect(await lengths.next() == 3)
    #expect(await lengths.next() == 5)
    #expect(reader.wrappedValue.name == "Grace")
  }

  @Test func aReaderPropertyWrapperSharesTheKey() async {
    @Shared(.inMemory("flag")) var flag = false
    @SharedReader(.inMemory("flag")) var readOnly = true
    $flag.withLock { $0 = true }
    #expect(readOnly)
  }

  @Test func unwrappingAnOptional() {
    let profile = Shared<User?>(value: nil)
    #expect(Shared(profile) == nil)
    profile.withLock { $0 = User(name: "Ada", age: 36) }
    guard let unwrapped = Shared(profile) else {
      Issue.record("expected a value")
      return
    }
    unwrapped.withLock { $0.age = 37 }
    #expect(profile.wrappedValue?.age == 37)
    profile.withLock { $0 = nil }
    #expect(unwrapped.wrappedValue.age == 37)
    unwrapped.withLock { $0.age = 38 }
    #expect(profile.wrappedValue == nil)
    #expect(unwrapped.wrappedValue.age == 38)
  }

  @Test func anUnwrappedValuesSkipNil() async {
    let profile = Shared<User?>(value: User(name: "Ada", age: 36))
    let unwrapped = Shared(profile)!
    var iterator = unwrapped.values(buffering: .all).makeAsyncIterator()
    profile.withLock { $0 = nil }
    profile.withLock { $0 = User(name: "Grace", age: 40) }
    #expect(await iterator.next()?.name == "Ada")
    #expect(await iterator.next()?.name == "Grace")
  }
}
