import Foundation
import Testing

@testable import SharedPostgres

/// The machine that decides which stored versions reach memory, driven through every ordering of a save of this
/// instance, two announcements of other instances, and a load.
@Suite struct KeyVersionStateMachineTests {
  enum Event: Hashable, CustomStringConvertible {
    case saveStarted
    case saveFinished(written: Int64?)
    case announced(Int64)
    case loaded(Int64)

    var description: String {
      switch self {
      case .saveStarted: "saveStarted"
      case .saveFinished(let written): "saveFinished(\(written.map(String.init) ?? "failed"))"
      case .announced(let version): "announced(\(version))"
      case .loaded(let version): "loaded(\(version))"
      }
    }
  }

  /// Every ordering of `events` in which the save starts before it finishes.
  static func orderings(of events: [Event]) -> [[Event]] {
    guard !events.isEmpty else { return [[]] }
    var result: [[Event]] = []
    for (index, event) in events.enumerated() {
      if case .saveFinished = event, events.contains(.saveStarted) { continue }
      var rest = events
      rest.remove(at: index)
      result += orderings(of: rest).map { [event] + $0 }
    }
    return result
  }

  struct Run {
    var machine = KeyVersionStateMachine()
    /// The versions put in memory, in order.
    var applied: [Int64] = []
    var saving = false
    var save: UInt64 = 0

    mutating func hear(_ change: StoredChange) {
      if case .apply(let change) = machine.notified(change) {
        #expect(!saving, "nothing is applied while a save runs")
        applied.append(change.version)
      }
    }

    mutating func perform(_ event: Event) {
      switch event {
      case .saveStarted:
        save = machine.saveStarted().save
        saving = true
      case .saveFinished(let written):
        saving = false
        let action = machine.saveFinished(save, written: written, memoryHoldsWritten: true)
        if case .redeliver(let change) = action { hear(change) }
      case .announced(let version):
        hear(StoredChange(version: version, json: Data("{}".utf8)))
      case .loaded(let version):
        machine.loaded(version: version)
      }
    }
  }

  @Test(arguments: [
    (Int64?.some(3), [Int64(2), 4]),
    (Int64?.some(5), [Int64(2), 4]),
    (Int64?.some(1), [Int64(2), 3]),
    (Int64?.none, [Int64(2), 4]),
    (Int64?.some(4), [Int64(4), 4]),
  ])
  func everyOrderingAppliesOnlyNewerVersionsAndEndsOnTheNewest(written: Int64?, announced: [Int64]) {
    let events: [Event] = [.saveStarted, .saveFinished(written: written), .loaded(1)] + announced.map(Event.announced)
    let orderings = Self.orderings(of: events)
    #expect(orderings.count == 60)
    for ordering in orderings {
      var run = Run()
      for event in ordering { run.perform(event) }
      let context = Comment(rawValue: "\(ordering)")
      // Never an older version over a newer one, nor the same one twice.
      #expect(run.applied == run.applied.sorted() && Set(run.applied).count == run.applied.count, context)
      // Nothing the save wrote, or older, is applied after the save finished.
      let newest = max(written ?? 0, announced.max() ?? 0, 1)
      #expect(run.machine.knownVersion == newest, context)
      #expect(run.machine.savesRunning == 0 && run.machine.held == nil, context)
      // The newest announcement reaches memory when it is newer than what this instance wrote.
      if let top = announced.max(), top > (written ?? 0), top > 1 {
        #expect(run.applied.last == top, context)
      }
      #expect(run.machine.lastSaveFailed == (written == nil), context)
    }
  }

  @Test func aMergeComparesAgainstTheVersionMemoryHolds() {
    var machine = KeyVersionStateMachine()
    machine.loaded(version: 2)
    machine.memoryHolds(version: 2)
    var base = machine.saveStarted().base
    #expect(base == 2)
    // A merged value that did not reach memory (the program changed it meanwhile) is not a base.
    var finished = machine.saveFinished(1, written: 3, memoryHoldsWritten: false)
    #expect(finished == .none)
    #expect(machine.knownVersion == 3)
    base = machine.saveStarted().base
    #expect(base == 2)
    finished = machine.saveFinished(2, written: 4, memoryHoldsWritten: true)
    #expect(finished == .none)
    base = machine.saveStarted().base
    #expect(base == 4)
    _ = machine.saveFinished(3, written: nil, memoryHoldsWritten: false)
    #expect(machine.lastSaveFailed)
  }

  /// A version that reaches memory, or does not (the program changed the value meanwhile, so memory holds the
  /// program's change instead), in every ordering with a save whose result reaches memory or not: the base of
  /// merges is always the newest version memory took, never one it only heard or read.
  @Test(arguments: [
    (Int64?.some(3), true, [true, false], false),
    (Int64?.some(3), false, [false, true], true),
    (Int64?.some(5), true, [false, false], false),
    (Int64?.none, false, [true, false], true),
    (Int64?.some(1), false, [false, true], false),
  ])
  func everyOrderingKeepsTheBaseAtWhatMemoryHolds(
    written: Int64?, memoryHoldsWritten: Bool, taken: [Bool], loadTaken: Bool
  ) {
    enum Step: Hashable {
      case saveStarted, saveFinished, loaded
      case announced(Int64)
    }
    let announced: [Int64] = [2, 4]
    let steps: [Step] = [.saveStarted, .saveFinished, .loaded] + announced.map(Step.announced)
    func orderings(_ steps: [Step]) -> [[Step]] {
      guard !steps.isEmpty else { return [[]] }
      var result: [[Step]] = []
      for (index, step) in steps.enumerated() {
        if step == .saveFinished, steps.contains(.saveStarted) { continue }
        var rest = steps
        rest.remove(at: index)
        result += orderings(rest).map { [step] + $0 }
      }
      return result
    }
    let all = orderings(steps)
    #expect(all.count == 60)
    for ordering in all {
      var machine = KeyVersionStateMachine()
      // The newest version memory took.
      var held: Int64 = 0
      func apply(_ version: Int64, taken: Bool) {
        guard taken else { return }
        machine.memoryHolds(version: version)
        held = max(held, version)
      }
      func hear(_ version: Int64) {
        if case .apply(let change) = machine.notified(StoredChange(version: version, json: Data("{}".utf8))) {
          apply(change.version, taken: taken[announced.firstIndex(of: change.version)!])
        }
      }
      for step in ordering {
        switch step {
        case .saveStarted:
          #expect(machine.saveStarted().base == held, Comment(rawValue: "\(ordering)"))
        case .saveFinished:
          let action = machine.saveFinished(1, written: written, memoryHoldsWritten: memoryHoldsWritten)
          if let written, memoryHoldsWritten { held = max(held, written) }
          if case .redeliver(let change) = action { hear(change.version) }
        case .announced(let version):
          hear(version)
        case .loaded:
          machine.loaded(version: 1)
          apply(1, taken: loadTaken)
        }
        #expect(machine.baseVersion == held, Comment(rawValue: "\(ordering) at \(step)"))
      }
      #expect(machine.knownVersion == max(written ?? 0, 4), Comment(rawValue: "\(ordering)"))
    }
  }

  /// Another instance's versions are decided when heard and land in memory later (a database round trip may come
  /// between); this instance saves, and loads, meanwhile. Driven through every ordering of a save, two
  /// announcements, their two landings and a load (which reads and lands in turn with the landings): memory never
  /// takes a version older than one it held or one this instance wrote before it landed, and ends on the newest
  /// version known (the save's, when the save kept memory).
  @Test(arguments: [Int64?.some(3), Int64?.some(5), Int64?.some(1), Int64?.none])
  func everyOrderingLandsOnlyVersionsNewerThanMemory(written: Int64?) {
    enum Step: Hashable {
      case saveStarted, saveFinished, loaded
      case announced(Int64)
      case landed(Int64)
    }
    let announced: [Int64] = [2, 4]
    let steps: [Step] =
      [.saveStarted, .saveFinished, .loaded] + announced.map(Step.announced)
      + announced.map(Step.landed)
    func orderings(_ steps: [Step]) -> [[Step]] {
      guard !steps.isEmpty else { return [[]] }
      var result: [[Step]] = []
      for (index, step) in steps.enumerated() {
        if step == .saveFinished, steps.contains(.saveStarted) { continue }
        if case .landed(let version) = step, steps.contains(.announced(version)) { continue }
        var rest = steps
        rest.remove(at: index)
        result += orderings(rest).map { [step] + $0 }
      }
      return result
    }
    #expect(orderings(steps).count == 630)
    // A save that starts after a version was committed writes a newer one: orderings where it would not are left out.
    let all = orderings(steps).filter { ordering in
      guard let written, let start = ordering.firstIndex(of: .saveStarted) else { return true }
      return !ordering[..<start].contains { step in
        switch step {
        case .announced(let version): version >= written
        case .loaded: 1 >= written
        default: false
        }
      }
    }
    for ordering in all {
      let context = Comment(rawValue: "\(ordering)")
      var machine = KeyVersionStateMachine()
      // The version memory holds (0: the default), and the decided versions waiting to land.
      var memory: Int64 = 0
      var waiting: Set<Int64> = []
      // Whether memory holds a change of the program (made before each save) not saved yet.
      var programChangeInMemory = false
      // A load waits for the landings decided before it (they hold the landing turn).
      var loadWaits = false
      func land(_ version: Int64) {
        guard waiting.remove(version) != nil,
          machine.landingStarted(StoredChange(version: version, json: Data("{}".utf8)))
        else { return }
        #expect(version > memory || (version == memory && !programChangeInMemory), context)
        memory = version
        programChangeInMemory = false
        machine.landingFinished()
        machine.memoryHolds(version: version)
      }
      func hear(_ version: Int64) {
        if case .apply(let change) = machine.notified(StoredChange(version: version, json: Data("{}".utf8))) {
          waiting.insert(change.version)
        }
      }
      func load() {
        // A load of version 1; one behind reads the row again (finding the newest version the machine knows, at
        // most). While a save runs, the program's change wins over it.
        machine.loaded(version: 1)
        let version = machine.loadIsBehind(version: 1) ? machine.knownVersion : 1
        guard machine.savesRunning == 0 else { return }
        #expect(version >= memory, context)
        memory = version
        programChangeInMemory = false
        machine.memoryHolds(version: version)
      }
      for step in ordering {
        switch step {
        case .saveStarted:
          _ = machine.saveStarted()
          programChangeInMemory = true
        case .saveFinished:
          let action = machine.saveFinished(1, written: written, memoryHoldsWritten: written != nil)
          if let written {
            memory = max(memory, written)
            programChangeInMemory = false
          }
          if case .redeliver(let change) = action {
            hear(change.version)
            land(change.version)
          }
        case .announced(let version):
          hear(version)
        case .landed(let version):
          land(version)
        case .loaded:
          if waiting.isEmpty { load() } else { loadWaits = true }
        }
        if loadWaits && waiting.isEmpty {
          loadWaits = false
          load()
        }
      }
      // Every landing that was decided has happened; memory ends on the newest version known, or on the program's
      // change, saved or kept for the next save after a failure.
      #expect(waiting.isEmpty && !loadWaits, context)
      if written == nil && machine.knownVersion > memory {
        #expect(programChangeInMemory, context)
      } else {
        #expect(memory == machine.knownVersion, context)
      }
    }
  }

  /// A read finds the row at version 1 while this instance knew version 3 (the row was deleted and made again),
  /// in every ordering with a save and another instance's announcement of the old row (heard, then applied later):
  /// the versions above 1 are forgotten exactly when nothing was learned during the read, and then the new row's
  /// next version is applied, while the old row's announcement heard before never lands its value (it reads the
  /// row instead).
  @Test(arguments: [Int64?.some(4), Int64?.none])
  func everyOrderingForgetsVersionsAboveARowMadeAgainOnlyWhenNothingWasLearnedDuringTheRead(written: Int64?) {
    enum Step: Hashable {
      case readStarted, readFinished, saveStarted, saveFinished, heard, announced
    }
    func orderings(_ steps: [Step]) -> [[Step]] {
      guard !steps.isEmpty else { return [[]] }
      var result: [[Step]] = []
      for (index, step) in steps.enumerated() {
        if step == .saveFinished, steps.contains(.saveStarted) { continue }
        if step == .readFinished, steps.contains(.readStarted) { continue }
        if step == .announced, steps.contains(.heard) { continue }
        var rest = steps
        rest.remove(at: index)
        result += orderings(rest).map { [step] + $0 }
      }
      return result
    }
    let all = orderings([.readStarted, .readFinished, .saveStarted, .saveFinished, .heard, .announced])
    #expect(all.count == 90)
    for ordering in all {
      let context = Comment(rawValue: "\(ordering)")
      var machine = KeyVersionStateMachine()
      machine.loaded(version: 3)
      machine.memoryHolds(version: 3)
      var knownBefore: Int64 = 0
      var forgot = false
      // How many rows made again were found (the stamp announcements carry), and the old row's announcement's.
      var found: UInt64 = 0
      var heardAt: UInt64 = 0
      func check(_ change: StoredChange) {
        #expect(!(forgot && heardAt < found && change.version == 5 && change.json != nil), context)
      }
      for step in ordering {
        switch step {
        case .readStarted:
          knownBefore = machine.knownVersion
        case .readFinished:
          let learned = machine.knownVersion != knownBefore
          forgot = machine.rowRecreated(version: 1, knownBeforeRead: knownBefore, found: found + 1)
          if forgot { found += 1 }
          #expect(forgot == !learned, context)
          if forgot {
            #expect(machine.knownVersion == 1 && machine.baseVersion <= 1, context)
          }
        case .saveStarted:
          _ = machine.saveStarted()
        case .saveFinished:
          if case .redeliver(let change) = machine.saveFinished(1, written: written, memoryHoldsWritten: true) {
            check(change)
          }
        case .heard:
          heardAt = found
        case .announced:
          // Another instance's version 5 of the old row, heard before the deletion and applied now.
          let action = machine.notified(StoredChange(version: 5, json: Data("{}".utf8)), heardAt: heardAt)
          if case .apply(let change) = action { check(change) }
        }
      }
      // Once the versions above the new row are forgotten, its next version is applied.
      if forgot, machine.savesRunning == 0, machine.knownVersion == 1 {
        let next = machine.notified(StoredChange(version: 2, json: Data("{}".utf8)))
        #expect(next == .apply(StoredChange(version: 2, json: Data("{}".utf8))), context)
      }
    }
  }

  @Test func aHeardOrReadVersionIsNotABaseUntilMemoryTakesIt() {
    var machine = KeyVersionStateMachine()
    let heard = machine.notified(StoredChange(version: 5, json: Data("{}".utf8)))
    #expect(heard == .apply(StoredChange(version: 5, json: Data("{}".utf8))))
    let read = machine.rowRead(version: 6)
    #expect(read)
    machine.loaded(version: 7)
    // Memory refused all three (the program changed the value): a save still merges with the row.
    #expect(machine.knownVersion == 7)
    #expect(machine.baseVersion == 0)
    #expect(machine.saveStarted().base == 0)
    _ = machine.saveFinished(1, written: nil, memoryHoldsWritten: false)
    machine.memoryHolds(version: 6)
    #expect(machine.baseVersion == 6)
  }

  /// An announcement older than what the instance knows is late, or of a row made again: the row is read to tell,
  /// unless a save or a load under way meets the row anyway.
  @Test func anAnnouncementOlderThanWhatIsKnownHasTheRowRead() {
    var machine = KeyVersionStateMachine()
    let read = machine.rowRead(version: 5)
    #expect(read)
    #expect(machine.notified(StoredChange(version: 5, json: Data("{}".utf8))) == .ignore)  // As old: nothing new.
    #expect(machine.notified(StoredChange(version: 1, json: Data("{}".utf8))) == .verify)
    // The read finds the row at 1 where 5 was known: made again, and its versions count from there.
    let recreated = machine.rowRecreated(version: 1, knownBeforeRead: 5)
    #expect(recreated)
    #expect(
      machine.notified(StoredChange(version: 2, json: Data("{}".utf8)))
        == .apply(StoredChange(version: 2, json: Data("{}".utf8))))
    machine.loadStarted()
    #expect(machine.notified(StoredChange(version: 1, json: nil)) == .ignore)  // The load reads the row.
  }

  @Test func anAnnouncementWithoutItsValueIsAppliedOnlyOnceItsRowIsRead() {
    var machine = KeyVersionStateMachine()
    let change = StoredChange(version: 3, json: nil)
    let first = machine.notified(change)
    #expect(first == .apply(change))
    #expect(machine.knownVersion == 0)
    let newer = machine.rowRead(version: 4)
    #expect(newer)
    let again = machine.rowRead(version: 4)
    #expect(!again)
    let older = machine.notified(StoredChange(version: 4, json: nil))
    #expect(older == .ignore)
  }

  /// A load runs while other instances' versions 6 and 7 are heard and land (memory holds 5 at first). The
  /// framework drops a load's value when memory changed after the load began (a landing did), so the load reads
  /// 5, 6 or 7 and is applied or dropped. Driven through every ordering of the load's start, read and hand-over and
  /// each version's hearing, landing start and landing end (a hearing and its landing hold the landing turn, as the
  /// load's hand-over does): memory never goes back, and it ends on 7 whether or not the framework kept the load.
  @Test(arguments: [Int64(5), 6, 7])
  func everyOrderingOfALoadAndLandingsEndsOnTheNewestVersion(readVersion: Int64) {
    enum Step: Hashable {
      case loadStarted, loadRead, loadLanded
      case heard(Int64)
      case landingStarted(Int64)
      case landingFinished(Int64)
      var holdsTurn: Bool {
        switch self {
        case .loadStarted, .loadRead: false
        default: true
        }
      }
    }
    let versions: [Int64] = [6, 7]
    let steps: [Step] =
      [.loadStarted, .loadRead, .loadLanded]
      + versions.flatMap { [.heard($0), .landingStarted($0), .landingFinished($0)] }
    func before(_ step: Step) -> Step? {
      switch step {
      case .loadRead: .loadStarted
      case .loadLanded: .loadRead
      case .landingStarted(let version): .heard(version)
      case .landingFinished(let version): .landingStarted(version)
      default: nil
      }
    }
    // A hearing holds the landing turn until its landing ended; versions newer than the one read are committed,
    // and so heard, only after the read.
    func orderings(_ steps: [Step], turn: Int64?, read: Bool) -> [[Step]] {
      guard !steps.isEmpty else { return [[]] }
      var result: [[Step]] = []
      for (index, step) in steps.enumerated() {
        if let earlier = before(step), steps.contains(earlier) { continue }
        if let turn, step.holdsTurn, step != .landingStarted(turn), step != .landingFinished(turn) { continue }
        if case .heard(let version) = step, version > readVersion, !read { continue }
        var nextTurn = turn
        if case .heard(let version) = step { nextTurn = version }
        if case .landingFinished = step { nextTurn = nil }
        var rest = steps
        rest.remove(at: index)
        result += orderings(rest, turn: nextTurn, read: read || step == .loadRead).map { [step] + $0 }
      }
      return result
    }
    let all = orderings(steps, turn: nil, read: false)
    #expect(!all.isEmpty)
    for ordering in all {
      let context = Comment(rawValue: "\(ordering)")
      var machine = KeyVersionStateMachine()
      machine.loaded(version: 5)
      machine.memoryHolds(version: 5)
      var memory: Int64 = 5
      // The framework's count of memory changes, and its value when the load began.
      var changes = 0
      var changesAtLoadStart = 0
      var decided: Set<Int64> = []
      var landing: Set<Int64> = []
      var read: Int64 = 0
      var redelivered: [StoredChange] = []
      func change(_ version: Int64) -> StoredChange { StoredChange(version: version, json: Data("{}".utf8)) }
      func put(_ version: Int64) {
        #expect(version >= memory, context)
        memory = version
        changes += 1
      }
      for step in ordering {
        switch step {
        case .loadStarted:
          machine.loadStarted()
          changesAtLoadStart = changes
        case .loadRead:
          read = readVersion
          machine.loaded(version: read)
        case .loadLanded:
          // One behind what is known reads again, and finds at least that.
          if machine.loadIsBehind(version: read) { read = machine.knownVersion }
          if changes == changesAtLoadStart { put(read) }
          if case .redeliver(let change) = machine.loadFinished() { redelivered.append(change) }
        case .heard(let version):
          if case .apply = machine.notified(change(version)) { decided.insert(version) }
        case .landingStarted(let version):
          if decided.contains(version), machine.landingStarted(change(version)) { landing.insert(version) }
        case .landingFinished(let version):
          guard landing.contains(version) else { break }
          put(version)
          machine.landingFinished()
        }
      }
      // Changes held during the load are heard again after it, one after another.
      for change in redelivered {
        if case .apply = machine.notified(change), machine.landingStarted(change) {
          put(change.version)
          machine.landingFinished()
        }
      }
      #expect(memory == 7, context)
      #expect(machine.knownVersion == 7 && machine.held == nil && machine.loadsRunning == 0, context)
    }
  }

  /// Two saves of this instance run at once (a retry of a failed save and the framework's next save, say), each
  /// writing or failing, and finish in either order: the flag that saves memory again follows the save that started
  /// last, so a newer save that failed is never cleared by an older one that wrote.
  @Test(arguments: [(true, false), (false, true), (false, false), (true, true)])
  func everyOrderingOfTwoSavesKeepsTheOutcomeOfTheNewerOne(olderWrites: Bool, newerWrites: Bool) {
    for newerFinishesFirst in [false, true] {
      var machine = KeyVersionStateMachine()
      let older = machine.saveStarted()
      let newer = machine.saveStarted()
      let finishes = [(older, olderWrites ? Int64(1) : nil), (newer, newerWrites ? Int64(2) : nil)]
      for (save, written) in newerFinishesFirst ? finishes.reversed() : finishes {
        _ = machine.saveFinished(save.save, written: written, memoryHoldsWritten: true)
      }
      #expect(
        machine.lastSaveFailed == !newerWrites,
        Comment(rawValue: "older: \(olderWrites), newer: \(newerWrites), newer first: \(newerFinishesFirst)"))
    }
  }

  /// What a key learns about its row's JSON, for the refusal of writes over a row that does not decode.
  enum RowEvent: Hashable, CustomStringConvertible {
    /// A load, landing or read found `version` not decoding.
    case undecodable(Int64)
    /// A load, landing or read found `version` decoding.
    case decoded(Int64)
    /// A save under last writer wins asks to write (and, when it may, writes 6).
    case blindSave
    /// A save under merge or a checked update read the row and found it not decoding at 5.
    case refusedAfterRead

    var description: String {
      switch self {
      case .undecodable(let version): "undecodable(\(version))"
      case .decoded(let version): "decoded(\(version))"
      case .blindSave: "blindSave"
      case .refusedAfterRead: "refusedAfterRead"
      }
    }
  }

  /// Findings about the row's JSON arrive in every order (a late landing of an older version after a newer one, a
  /// save in between): a save that writes without merging is refused exactly while the newest version found does
  /// not decode, reads the row first while nothing was found yet, and a save that wrote ends every refusal for
  /// older versions; a refused save is not a failed save to retry.
  @Test(arguments: [
    [RowEvent.undecodable(3), .decoded(2), .decoded(4), .blindSave],
    [RowEvent.undecodable(5), .undecodable(3), .decoded(4), .blindSave],
    [RowEvent.decoded(3), .undecodable(4), .blindSave, .refusedAfterRead],
    [RowEvent.undecodable(2), .decoded(1), .refusedAfterRead, .blindSave],
  ])
  func everyOrderingRefusesBlindSavesExactlyWhileTheNewestRowFoundDoesNotDecode(events: [RowEvent]) {
    func orderings(_ events: [RowEvent]) -> [[RowEvent]] {
      guard !events.isEmpty else { return [[]] }
      var result: [[RowEvent]] = []
      for (index, event) in events.enumerated() {
        var rest = events
        rest.remove(at: index)
        result += orderings(rest).map { [event] + $0 }
      }
      return result
    }
    let all = orderings(events)
    #expect(all.count == 24)
    for ordering in all {
      let context = Comment(rawValue: "\(ordering)")
      var machine = KeyVersionStateMachine()
      var newestDecoded: Int64 = 0
      var newestUndecodable: Int64 = 0
      var lookedAt = false
      for event in ordering {
        switch event {
        case .undecodable(let version):
          machine.rowUndecodable(version: version)
          newestUndecodable = max(newestUndecodable, version)
          lookedAt = true
        case .decoded(let version):
          machine.rowDecoded(version: version)
          newestDecoded = max(newestDecoded, version)
          lookedAt = true
        case .blindSave:
          switch machine.blindSaveStarted() {
          case .refuse(let version):
            #expect(newestUndecodable > newestDecoded && version == newestUndecodable, context)
          case .readFirst(let save, _):
            #expect(!lookedAt, context)
            _ = machine.saveFinished(save, written: 6, memoryHoldsWritten: true)
            newestDecoded = max(newestDecoded, 6)
            lookedAt = true
          case .write(let save, _):
            #expect(lookedAt && newestUndecodable <= newestDecoded, context)
            _ = machine.saveFinished(save, written: 6, memoryHoldsWritten: true)
            newestDecoded = max(newestDecoded, 6)
          }
        case .refusedAfterRead:
          let save = machine.saveStarted().save
          #expect(machine.saveRefused(save, version: 5) == .none, context)
          #expect(!machine.lastSaveFailed && machine.savesRunning == 0, context)
          if 5 >= newestDecoded { newestUndecodable = max(newestUndecodable, 5) }
          lookedAt = true
        }
        let refused = machine.undecodableVersion != nil
        #expect(refused == (newestUndecodable > newestDecoded), context)
        if refused { #expect(machine.undecodableVersion == newestUndecodable, context) }
      }
    }
  }

  /// The program's overwrite ends a refusal; a row found missing does too (nothing is left to lose).
  @Test func anOverwriteOrAMissingRowEndsTheRefusal() {
    var machine = KeyVersionStateMachine()
    machine.rowUndecodable(version: 3)
    #expect(machine.blindSaveStarted() == .refuse(version: 3))
    machine.overwriteAllowed()
    guard case .write(let save, _) = machine.blindSaveStarted() else {
      Issue.record("expected a write after the overwrite was allowed")
      return
    }
    _ = machine.saveFinished(save, written: 4, memoryHoldsWritten: true)
    machine.rowUndecodable(version: 5)
    #expect(machine.blindSaveStarted() == .refuse(version: 5))
    machine.rowMissing()
    #expect(machine.undecodableVersion == nil)
  }

  /// Another instance's announcement older than a write of this instance, heard before this instance's own
  /// announcement of that write, was committed before it (announcements come in commit order): late, and dropped
  /// without reading the row. One heard after the own announcement was committed after the write: only a row made
  /// again explains it, and the row is read.
  @Test func anOlderAnnouncementHeardBeforeTheOwnWritesIsLateAndNotRead() {
    let value = Data("{}".utf8)
    var machine = KeyVersionStateMachine()
    #expect(machine.notified(StoredChange(version: 4, json: value)) == .apply(StoredChange(version: 4, json: value)))
    // A checked update of this instance wrote 6 over 5, which it had not heard yet; the write lands.
    machine.ownWriteReturned(version: 6)
    #expect(machine.notified(StoredChange(version: 6, json: value)) == .apply(StoredChange(version: 6, json: value)))
    #expect(machine.notified(StoredChange(version: 5, json: value)) == .ignore)
    machine.ownAnnouncementHeard(version: 6)
    #expect(machine.notified(StoredChange(version: 5, json: value)) == .verify)
  }

  /// A write whose own announcement was heard before its return was counted waits for none; nor does one that
  /// returned a version older than one known (a row made again), nor one whose announcement was lost with the
  /// listening connection.
  @Test func aWriteWaitsForItsAnnouncementOnlyWhileItCanCome() {
    let value = Data("{}".utf8)
    var early = KeyVersionStateMachine()
    _ = early.rowRead(version: 4)
    early.ownAnnouncementHeard(version: 6)
    early.ownWriteReturned(version: 6)
    _ = early.notified(StoredChange(version: 6, json: value))
    #expect(early.notified(StoredChange(version: 5, json: value)) == .verify)

    var older = KeyVersionStateMachine()
    _ = older.rowRead(version: 9)
    older.ownWriteReturned(version: 6)
    #expect(older.notified(StoredChange(version: 5, json: value)) == .verify)

    var restarted = KeyVersionStateMachine()
    _ = restarted.rowRead(version: 4)
    restarted.ownWriteReturned(version: 6)
    _ = restarted.notified(StoredChange(version: 6, json: value))
    restarted.listeningRestarted()
    #expect(restarted.notified(StoredChange(version: 5, json: value)) == .verify)

    // A newer own announcement heard means an older write's was lost: it waits no more.
    var lost = KeyVersionStateMachine()
    _ = lost.rowRead(version: 4)
    lost.ownWriteReturned(version: 6)
    _ = lost.notified(StoredChange(version: 6, json: value))
    lost.ownWriteReturned(version: 8)
    _ = lost.notified(StoredChange(version: 8, json: value))
    lost.ownAnnouncementHeard(version: 8)
    #expect(lost.notified(StoredChange(version: 5, json: value)) == .verify)
  }
}
