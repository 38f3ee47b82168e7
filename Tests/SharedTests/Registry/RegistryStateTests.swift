import Reactive
import Testing

@testable import SharedState

/// Two holders making the value of one key race between finding the key missing (a reservation, under the lock)
/// and keeping the value they made (outside the lock in between). Every ordering of the two must end with one value
/// for the key, the one kept first, and both holders sharing it.
@Suite struct RegistryStateTests {
  /// A step of one of the two makers.
  private enum Step: Hashable {
    case reserve(Int)
    case keep(Int)
  }

  /// Every interleaving of the two makers' steps, each reserving before it keeps.
  private static let orderings: [[Step]] = {
    var all: [[Step]] = []
    func extend(_ prefix: [Step], reserved: Set<Int>, kept: Set<Int>) {
      if kept.count == 2 {
        all.append(prefix)
        return
      }
      for maker in 0..<2 where !kept.contains(maker) {
        if reserved.contains(maker) {
          extend(prefix + [.keep(maker)], reserved: reserved, kept: kept.union([maker]))
        } else {
          extend(prefix + [.reserve(maker)], reserved: reserved.union([maker]), kept: kept)
        }
      }
    }
    extend([], reserved: [], kept: [])
    return all
  }()

  @Test func everyOrderingOfTwoMakersOfOneKeyEndsWithTheValueKeptFirst() {
    #expect(Self.orderings.count == 6)
    for ordering in Self.orderings {
      check(ordering, keys: ["post", "post"])
    }
  }

  @Test func everyOrderingOfMakersOfTwoKeysKeepsBoth() {
    for ordering in Self.orderings {
      check(ordering, keys: ["post", "user"])
    }
  }

  @Test func aValueKeptBeforeTheReservationIsFoundByIt() {
    var state = RegistryState()
    let existing = ReactiveBox(1)
    guard case .missing(let generation) = state.reserve("post", as: Int.self) else {
      Issue.record("an empty registry has no value")
      return
    }
    _ = state.insertIfMissing(
      Shared<Int>.Reference.box(existing), isPermanent: false, for: "post", generation: generation)
    guard case .found(.box(let found)) = state.reserve("post", as: Int.self) else {
      Issue.record("the kept value was not found")
      return
    }
    #expect(found === existing)
  }

  @Test func aValueOfAnotherTypeKeptSinceTheReservationIsAMismatch() {
    var state = RegistryState()
    guard case .missing(let generation) = state.reserve("post", as: Int.self) else {
      Issue.record("an empty registry has no value")
      return
    }
    // Another holder, of a `String` value under the same key, reserves and keeps its value first.
    let other = ReactiveBox("title")
    let otherGeneration = state.takeGeneration()
    _ = state.insertIfMissing(
      Shared<String>.Reference.box(other), isPermanent: false, for: "post", generation: otherGeneration)
    let outcome = state.insertIfMissing(
      Shared<Int>.Reference.box(ReactiveBox(1)), isPermanent: false, for: "post", generation: generation)
    guard case .mismatch(let existing, let object) = outcome else {
      Issue.record("the later maker replaced a live value of another type: \(outcome)")
      return
    }
    #expect(ObjectIdentifier(existing) == ObjectIdentifier(String.self))
    #expect(ObjectIdentifier(object) == ObjectIdentifier(other))
  }

  @Test func aValueWhoseHoldersAllWentIsReplacedByTheNextMaker() {
    var state = RegistryState()
    keepAndDrop("post", in: &state)
    // The entry's object is gone: the key reads as missing, and the next maker's value is kept.
    guard case .missing(let generation) = state.reserve("post", as: Int.self) else {
      Issue.record("a value nobody holds was found")
      return
    }
    let next = ReactiveBox(2)
    let outcome: RegistryState.Lookup<Int> = state.insertIfMissing(
      Shared<Int>.Reference.box(next), isPermanent: false, for: "post", generation: generation)
    guard case .found(.box(let kept)) = outcome else {
      Issue.record("the next maker's value was not kept")
      return
    }
    #expect(kept === next)
    guard case .found(.box(let found)) = state.lookup("post", as: Int.self) else {
      Issue.record("the kept value is not registered")
      return
    }
    #expect(found === next)
  }

  /// Runs `ordering` with maker `n` making the value of `keys[n]`, and checks what each maker ends with.
  private func check(_ ordering: [Step], keys: [String]) {
    var state = RegistryState()
    let made = [ReactiveBox(0), ReactiveBox(1)]
    var reservations: [Int: RegistryState.Lookup<Int>] = [:]
    var results: [Int: ReactiveBox<Int>] = [:]
    var firstKept: [String: Int] = [:]
    for step in ordering {
      switch step {
      case .reserve(let maker):
        reservations[maker] = state.reserve(keys[maker], as: Int.self)
      case .keep(let maker):
        switch reservations[maker] {
        case .found(.box(let box)):
          results[maker] = box  // The other maker's value was there already: nothing to keep.
        case .missing(let generation):
          let outcome = state.insertIfMissing(
            Shared<Int>.Reference.box(made[maker]), isPermanent: false, for: keys[maker], generation: generation)
          guard case .found(.box(let box)) = outcome else {
            Issue.record("keeping a value of the same type cannot mismatch (\(ordering))")
            return
          }
          results[maker] = box
          if box === made[maker] { firstKept[keys[maker]] = firstKept[keys[maker]] ?? maker }
        default:
          Issue.record("unexpected reservation \(String(describing: reservations[maker])) (\(ordering))")
          return
        }
      }
    }
    for maker in 0..<2 {
      let key = keys[maker]
      guard let winner = firstKept[key] else {
        Issue.record("no value kept for \(key) (\(ordering))")
        continue
      }
      #expect(results[maker] === made[winner], "maker \(maker) in \(ordering)")
      guard case .found(.box(let registered)) = state.lookup(key, as: Int.self) else {
        Issue.record("no value registered for \(key) (\(ordering))")
        continue
      }
      #expect(registered === made[winner], "registered value of \(key) in \(ordering)")
    }
    withExtendedLifetime(made) {}
  }

  /// Keeps a value for `key` and lets it go, leaving its entry behind.
  private func keepAndDrop(_ key: String, in state: inout RegistryState) {
    let gone = ReactiveBox(0)
    let generation = state.takeGeneration()
    _ = state.insertIfMissing(Shared<Int>.Reference.box(gone), isPermanent: false, for: key, generation: generation)
  }
}
