import Foundation
import TestSupport
import Testing

@testable import SharedState

/// The searches run on one thread of their own, and are skipped under ThreadSanitizer (see
/// `PersistenceStateMachineTests`).
private let searchesRun = !isThreadSanitizerBuild

/// The value's owner, as the file's write order refers to it.
private final class Owner: Sendable {}

/// A file-backed value at the end of a process: its changes, its save task (which takes a change, then writes it
/// under the file's write lock, then reports it), and the flushes at exit (a termination signal's and `atexit`'s,
/// perhaps on two threads at once), each of which takes the newest unsaved change and writes it under the same
/// lock. The machine and the write order are the real ones; the file is a value and the change numbers it held.
private struct World: OrderedWorld {
  typealias Machine = PersistenceStateMachine<Int, Int>

  enum Event: Hashable, CustomStringConvertible {
    case change
    /// The save task's delay ends: it asks the machine for work.
    case saveTaskReady
    /// The save task writes the change it took, under the file's write lock.
    case saveWrites
    /// The save task reports its save.
    case saveFinishes
    /// Flush `pass` at exit takes the newest unsaved change.
    case exitTakes(pass: Int)
    /// Flush `pass` at exit writes what it took, under the file's write lock.
    case exitWrites(pass: Int)

    var description: String {
      switch self {
      case .change: "change"
      case .saveTaskReady: "ready"
      case .saveWrites: "saveWrite"
      case .saveFinishes: "saved"
      case .exitTakes(let pass): "exitTake[\(pass)]"
      case .exitWrites(let pass): "exitWrite[\(pass)]"
      }
    }
  }

  enum SaveTask {
    case none
    case ready
    case took(Machine.Change)
    case wrote
  }

  enum ExitPass {
    case notStarted
    /// It took `change` (`nil`: nothing waited) when the newest change made was number `newest`.
    case took(Machine.Change?, newest: UInt64)
    case done
  }

  let owner = Owner()
  var machine = Machine(sameValue: { $0 == $1 })
  var order = FileWriteOrder()
  var changesLeft: Int
  var sequence: UInt64 = 0
  var saveTask = SaveTask.none
  var exits: [ExitPass]
  /// The change numbers the file held, in order.
  var fileHistory: [UInt64] = []
  var fileValue: Int?
  var trace: [Event] = []
  var failure: String?

  init(changes: Int, exitPasses: Int) {
    changesLeft = changes
    exits = Array(repeating: .notStarted, count: exitPasses)
  }

  var enabled: [Event] {
    var events: [Event] = []
    if changesLeft > 0 { events.append(.change) }
    switch saveTask {
    case .none: break
    case .ready: events.append(.saveTaskReady)
    case .took: events.append(.saveWrites)
    case .wrote: events.append(.saveFinishes)
    }
    for (pass, exit) in exits.enumerated() {
      switch exit {
      case .notStarted: events.append(.exitTakes(pass: pass))
      case .took: events.append(.exitWrites(pass: pass))
      case .done: break
      }
    }
    return events
  }

  mutating func fail(_ message: String) {
    if failure == nil { failure = "\(message) after \(trace)" }
  }

  mutating func apply(_ event: Event) {
    trace.append(event)
    switch event {
    case .change:
      changesLeft -= 1
      sequence += 1
      // The value of change n is n * 10, so the file's value tells which change it holds.
      let change = Machine.Change(value: Int(sequence) * 10, sequence: sequence)
      if case .startSaveTask = machine.changeRequested(change, owner: owner) { saveTask = .ready }
    case .saveTaskReady:
      switch machine.saveTaskReady() {
      case .save(let change): saveTask = .took(change)
      case .finish: saveTask = .none
      }
    case .saveWrites:
      guard case .took(let change) = saveTask else { return fail("no save took a change") }
      write(change)
      saveTask = .wrote
    case .saveFinishes:
      switch machine.saveFinished(error: nil) {
      case .continueSaving: saveTask = .ready
      case .finish: saveTask = .none
      }
    case .exitTakes(let pass):
      exits[pass] = .took(machine.newestUnsavedChange, newest: sequence)
    case .exitWrites(let pass):
      guard case .took(let change, let newest) = exits[pass] else { return fail("exit \(pass) took nothing") }
      if let change { write(change) }
      exits[pass] = .done
      // Whatever was made before the flush took its change is in the file once its write returns.
      if newest > 0 && (fileHistory.last ?? 0) < newest {
        fail("exit \(pass) returned with change \(fileHistory.last ?? 0) in the file, not \(newest)")
      }
    }
  }

  /// A write under the file's write lock: asked, then made and recorded, in one critical section.
  private mutating func write(_ change: Machine.Change) {
    guard order.writeRequested(sequence: change.sequence, by: owner) == .write else { return }
    if let last = fileHistory.last, last >= change.sequence {
      fail("change \(change.sequence) was written over change \(last)")
    }
    fileHistory.append(change.sequence)
    fileValue = change.value
    order.writeSucceeded(sequence: change.sequence, by: owner)
  }

  /// Lets the save task run to its end: the file then holds the newest change, and never went back on the way.
  mutating func settle() {
    var steps = 0
    while steps < 100 {
      steps += 1
      switch saveTask {
      case .none:
        if sequence > 0 && fileValue != Int(sequence) * 10 {
          fail("the file ends with \(fileValue.map(String.init) ?? "nothing"), not change \(sequence)")
        }
        if fileHistory != fileHistory.sorted() { fail("the file went back: \(fileHistory)") }
        return
      case .ready: apply(.saveTaskReady)
      case .took: apply(.saveWrites)
      case .wrote: apply(.saveFinishes)
      }
    }
    fail("the save task never ended")
  }
}

/// Every ordering of a value's changes and saves against one or two flushes at exit: the flush never returns
/// before the file holds every change made before it began, no write puts an older change over a newer one, and
/// the save task still ends with the file holding the newest change.
@Suite struct FileWriteOrderTests {
  private func explore(_ world: World) -> (orderings: Int, failure: String?) {
    searchEveryOrdering(of: world, endsEveryPrefix: true) { $0.settle() }
  }

  /// Explores on a thread of its own: the search never suspends, so it must not hold a thread of the shared pool.
  private func exploreOnOwnThread(changes: Int, exitPasses: Int) async -> (orderings: Int, failure: String?) {
    let world = World(changes: changes, exitPasses: exitPasses)
    return await withCheckedContinuation { continuation in
      let thread = Thread { continuation.resume(returning: explore(world)) }
      thread.stackSize = 8 << 20
      thread.start()
    }
  }

  @Test(.enabled(if: searchesRun, "single-threaded search: skipped under ThreadSanitizer"))
  func everyOrderingOfThreeChangesTheirSavesAndAFlushAtExitKeepsTheNewest() async {
    let (orderings, failure) = await exploreOnOwnThread(changes: 3, exitPasses: 1)
    #expect(failure == nil, "\(failure ?? "")")
    #expect(orderings > 1_000)
  }

  /// A termination signal's flush and the exit's, on two threads at once, against changes and a save under way.
  @Test(.enabled(if: searchesRun, "single-threaded search: skipped under ThreadSanitizer"))
  func everyOrderingOfThreeChangesTheirSavesAndTwoFlushesAtExitKeepsTheNewest() async {
    let (orderings, failure) = await exploreOnOwnThread(changes: 3, exitPasses: 2)
    #expect(failure == nil, "\(failure ?? "")")
    #expect(orderings > 100_000)
  }

  /// The ordering the write order exists for, spelled out: the exit writes change 2 while the save of change 1 is
  /// about to write; that save then writes nothing.
  @Test func aSaveOfAnOlderChangeAfterTheExitsWriteIsSkipped() {
    var world = World(changes: 2, exitPasses: 1)
    for event in [World.Event.change, .saveTaskReady, .change, .exitTakes(pass: 0), .exitWrites(pass: 0), .saveWrites] {
      world.apply(event)
    }
    #expect(world.failure == nil, "\(world.failure ?? "")")
    #expect(world.fileHistory == [2])
    world.settle()
    #expect(world.failure == nil, "\(world.failure ?? "")")
    #expect(world.fileHistory == [2])
  }
}
