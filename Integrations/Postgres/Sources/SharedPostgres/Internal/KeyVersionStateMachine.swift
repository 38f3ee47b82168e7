/// Decides, for one key of one database, which stored versions reach memory: never the instance's own echo (the
/// caller drops those), never an older version over a newer one, and nothing while a save of this instance runs
/// (the newest such change is held and looked at again once the save has its version), nor while a load of this
/// instance runs (the framework drops a load's value when memory changed after the load began, so a version landing
/// meanwhile would leave memory on it while the row holds the newer version the load read).
///
/// A version is decided twice: when it is heard (``notified(_:heardAt:)``, ``rowRead(version:)``: whether to read
/// or apply it at all), and again when it lands in memory (``landingStarted(_:)``), since a database round trip may
/// separate the two, during which this instance may save a newer version or load one.
///
/// It also keeps the base of merges: the newest version memory is known to hold, so a save under the merge policy
/// can tell that another instance wrote since. Hearing or reading a version does not move it: only memory taking
/// the value does (``memoryHolds(version:)``, or a save whose result reached memory), since the program may have
/// changed the value meanwhile, and memory then holds its change instead.
///
/// It also keeps whether the row may be written over without being read: not while the newest version found does
/// not decode (``rowUndecodable(version:)``, until a newer one decodes, this instance writes one, or the program
/// allows an overwrite), and not before this instance looked at the row at all (``blindSaveStarted()``).
///
/// A value type with one method per event and no tasks or clocks: the database calls it under its lock and acts
/// after.
struct KeyVersionStateMachine: Sendable {
  /// The newest version this instance has seen: written, applied, or read by a load whose value the framework
  /// keeps (a load that overlapped a landing is not counted: see ``loaded(version:)``).
  private(set) var knownVersion: Int64 = 0
  /// The version memory is known to be based on: what a merge compares the row against.
  private(set) var baseVersion: Int64 = 0
  /// How many saves of this instance run.
  private(set) var savesRunning = 0
  /// The newest change heard while changes wait (a save, or a load whose value may reach memory, runs).
  private(set) var held: StoredChange?
  /// Whether the newest save of this instance that finished (newest by when it started) failed: memory is saved
  /// again once the server is back. An older save that finishes later does not change it.
  private(set) var lastSaveFailed = false
  /// How many saves started: each save's number, in start order.
  private var savesStarted: UInt64 = 0
  /// The number of the newest save (by start) that finished.
  private var newestSaveFinished: UInt64 = 0
  /// How many loads of this instance run (from the framework asking for one until its value was handed over).
  private(set) var loadsRunning = 0
  /// Whether a landing is putting a version in memory now (``landingStarted(_:)`` to ``landingFinished()``).
  private var landingInMemory = false
  /// Whether the running loads began while a landing put a version in memory: the framework drops their value
  /// (memory changed after they began), so what they read is not known, and landings go ahead meanwhile.
  private var loadOverlapsLanding = false

  /// The stamp of the newest ``rowRecreated(version:knownBeforeRead:found:)``: announcements heard with an older
  /// stamp (queued before the row was found made again) may be of the old row.
  private var recreatedAt: UInt64 = 0
  /// The newest version found decoding: an older one found not decoding later (a late landing) refuses nothing.
  private var decodedVersion: Int64 = 0

  /// Versions this instance wrote, each newer than every version it knew when its write returned, whose own
  /// announcement was not heard yet. Announcements come in the order their writes committed, so another instance's
  /// announcement of an older version heard before one of these is late (its write committed before this
  /// instance's), not of a row made again since: it is dropped without reading the row
  /// (``notified(_:heardAt:)``). At most ``maximumWritesAwaitingAnnouncement`` are kept (the oldest go first, and a
  /// late announcement below them is then read, as before).
  private var writesAwaitingAnnouncement: [Int64] = []
  /// Announcements of this instance's writes heard before their write's return was counted
  /// (``ownWriteReturned(version:)``): that write then waits for no announcement. As many are kept.
  private var announcementsBeforeReturn: [Int64] = []
  /// How many versions ``writesAwaitingAnnouncement`` and ``announcementsBeforeReturn`` each keep.
  static let maximumWritesAwaitingAnnouncement = 16

  /// The newest version of the row this instance found it cannot decode (nor migrate), while no newer version is
  /// known to decode: a save that would write over the row without reading it is refused until the program decides
  /// (``PostgresKey/overwrite(with:)``), so a row of a newer schema, or edited by hand, is never lost silently.
  private(set) var undecodableVersion: Int64?
  /// Whether this instance has looked at the row since it began holding the key: read it, heard a version of it, or
  /// written it. Until then, a save under last writer wins reads the row first and writes only over what decodes.
  private(set) var rowLookedAt = false

  /// Whether changes heard now wait: while a save runs, or a load whose value may still reach memory.
  private var holdsChanges: Bool {
    savesRunning > 0 || (loadsRunning > 0 && !loadOverlapsLanding)
  }

  enum NotificationAction: Sendable, Equatable {
    /// Older than, or as old as, what this instance has: dropped.
    case ignore
    /// Heard while changes wait: held until the save has its version, or the load handed its value over.
    case hold
    /// Put it in memory (reading the row first when the change has no JSON).
    case apply(StoredChange)
    /// Older than what this instance knows: a late announcement, or one of a row deleted by hand and made again, at
    /// lower versions, by an instance that knew less. Only the row tells them apart: read it (a row found older than
    /// what this instance knew is a row made again, and lands).
    case verify
  }

  /// Another instance announced `change`; `heardAt` is the count of rows made again when it was heard (`.max`,
  /// the default, for a caller that does not count them). One heard before this key's row was found made again may
  /// be of the old row, whose versions are not comparable with the new row's: its value is dropped, and the row is
  /// read instead (the read decides by the row's version).
  mutating func notified(_ change: StoredChange, heardAt: UInt64 = .max) -> NotificationAction {
    guard change.version > knownVersion else {
      // While changes wait, the save or load under way meets the row itself.
      guard change.version < knownVersion, !holdsChanges else { return .ignore }
      // Heard before the announcement of a newer write of this instance: committed before it, so late.
      if heardAt >= recreatedAt, writesAwaitingAnnouncement.contains(where: { $0 > change.version }) { return .ignore }
      return .verify
    }
    let change = heardAt < recreatedAt ? StoredChange(version: change.version, json: nil) : change
    if holdsChanges {
      hold(change)
      return .hold
    }
    if change.json != nil { knownVersion = change.version }
    return .apply(change)
  }

  /// A write of this instance returned `version` (a save, a checked update, an overwrite), before the version is
  /// known. When it is newer than every version known, announcements of older versions heard before its own are
  /// late (see ``notified(_:heardAt:)``), unless its own was heard already.
  mutating func ownWriteReturned(version: Int64) {
    if let early = announcementsBeforeReturn.firstIndex(of: version) {
      announcementsBeforeReturn.remove(at: early)
      return
    }
    guard version > knownVersion else { return }
    writesAwaitingAnnouncement.append(version)
    if writesAwaitingAnnouncement.count > Self.maximumWritesAwaitingAnnouncement {
      writesAwaitingAnnouncement.removeFirst()
    }
  }

  /// The announcement of a write of this instance at `version` was heard: announcements heard from now on were
  /// committed after that write.
  mutating func ownAnnouncementHeard(version: Int64) {
    let awaited = writesAwaitingAnnouncement.contains(version)
    // An older write still waiting committed before this one: its announcement was lost (the listening connection
    // dropped meanwhile), and none is coming.
    writesAwaitingAnnouncement.removeAll { $0 <= version }
    if awaited { return }
    announcementsBeforeReturn.append(version)
    if announcementsBeforeReturn.count > Self.maximumWritesAwaitingAnnouncement {
      announcementsBeforeReturn.removeFirst()
    }
  }

  /// The listening connection is up again: announcements made while it was down are lost, so no write of this
  /// instance waits for its own any more.
  mutating func listeningRestarted() {
    writesAwaitingAnnouncement = []
  }

  /// The row was read (a load, a reload, or a notification without JSON): whether its `version` is newer than what
  /// this instance has, and so goes to memory.
  mutating func rowRead(version: Int64) -> Bool {
    guard version > knownVersion else { return false }
    knownVersion = version
    return true
  }

  /// The framework asked for a load (before the key reads the row). Changes heard from now on wait until it ends,
  /// unless a landing is putting a version in memory right now: the framework then drops the load's value, so the
  /// load does not make its version known, and changes keep landing.
  mutating func loadStarted() {
    if loadsRunning == 0 { loadOverlapsLanding = landingInMemory }
    loadsRunning += 1
  }

  /// A load read the row's `version`. It is known (so its announcement is not applied again) unless the load began
  /// during a landing: its value is then dropped by the framework, and the version must still land when heard.
  mutating func loaded(version: Int64) {
    if !loadOverlapsLanding { knownVersion = max(knownVersion, version) }
  }

  /// A load handed its value (or its error) to the framework.
  mutating func loadFinished() -> HeldChangeAction {
    loadsRunning -= 1
    if loadsRunning == 0 { loadOverlapsLanding = false }
    return releaseHeld()
  }

  /// A read that began when this instance knew `knownBeforeRead` found the row at an older `version`: the row was
  /// deleted and made again (versions only grow otherwise, and every version this instance knows was committed
  /// before the read began). The versions known above it are forgotten, so the new row's changes apply; returns
  /// whether they were. Nothing is forgotten when this instance learned a version during the read (its own save,
  /// made after the read, is then newer than the row read).
  ///
  /// `found` stamps it (see ``notified(_:heardAt:)``): announcements heard with an older stamp read the row instead
  /// of landing their value, and a change held now is dropped to the same.
  mutating func rowRecreated(version: Int64, knownBeforeRead: Int64, found: UInt64 = 0) -> Bool {
    guard version < knownBeforeRead, knownVersion == knownBeforeRead else { return false }
    knownVersion = version
    recreatedAt = max(recreatedAt, found)
    // Versions of the old row order nothing of the new one.
    listeningRestarted()
    baseVersion = min(baseVersion, version)
    if let change = held, change.version > version { held = nil }
    return true
  }

  /// A version decided earlier (by ``notified(_:heardAt:)`` or ``rowRead(version:)``) is about to land in memory:
  /// whether it still may. Not when this instance knows a newer version by now (its own save wrote one, or a load
  /// read one: memory holds that, or the program's change being saved), nor while a save of this instance runs (it
  /// started after the decision, so it writes a newer version than the one landing). While a load runs it is held
  /// instead, and looked at again when the load ends (the load reads it, or a newer version, and lands that). When
  /// it may, ``landingFinished()`` follows once memory was given it.
  mutating func landingStarted(_ change: StoredChange) -> Bool {
    guard change.version >= knownVersion, savesRunning == 0 else { return false }
    if holdsChanges {
      hold(change)
      return false
    }
    landingInMemory = true
    return true
  }

  /// The landing that ``landingStarted(_:)`` allowed gave memory its value.
  mutating func landingFinished() {
    landingInMemory = false
  }

  /// Whether a load that read `version` lands something older than a version this instance knows: the load then
  /// reads the row again, so it does not put an older value in memory than the one a landing put there.
  func loadIsBehind(version: Int64) -> Bool {
    version < knownVersion
  }

  /// Memory took the value of `version` (or a value combined with it): later merges compare the row against it.
  mutating func memoryHolds(version: Int64) {
    baseVersion = max(baseVersion, version)
  }

  /// A save starts; returns the version a merge compares the row against, the save's number for
  /// ``saveFinished(_:written:memoryHoldsWritten:)``, and the version a missing row is made at (one above the newest
  /// version this instance knows).
  mutating func saveStarted() -> (base: Int64, save: UInt64, insertVersion: Int64) {
    savesRunning += 1
    savesStarted += 1
    return (baseVersion, savesStarted, knownVersion + 1)
  }

  /// What a save that writes over the row without merging (last writer wins) may do.
  enum BlindSaveAction: Sendable, Equatable {
    /// Refused: the row holds this version, which does not decode. Nothing starts.
    case refuse(version: Int64)
    /// The row was never looked at: read it first, and write only over a row that decodes (the save's number, and
    /// the version a missing row is made at).
    case readFirst(save: UInt64, insertVersion: Int64)
    /// Write (the save's number, and the version a missing row is made at).
    case write(save: UInt64, insertVersion: Int64)
  }

  /// A save under last writer wins asks whether it may write over the row: refused while the newest version known
  /// does not decode; told to read the row first while it was never looked at. A save that goes ahead counts as
  /// ``saveStarted()`` does.
  mutating func blindSaveStarted() -> BlindSaveAction {
    if let version = undecodableVersion { return .refuse(version: version) }
    let (_, save, insertVersion) = saveStarted()
    guard rowLookedAt else { return .readFirst(save: save, insertVersion: insertVersion) }
    return .write(save: save, insertVersion: insertVersion)
  }

  /// The row was found at `version` not decoding (by a load, a landing, a reload or a save's read). Unless a newer
  /// version is known to decode, saves that write without reading are refused from now on.
  mutating func rowUndecodable(version: Int64) {
    rowLookedAt = true
    guard version >= decodedVersion else { return }
    undecodableVersion = max(undecodableVersion ?? version, version)
  }

  /// The row was found at `version` decoding (or migrated): a refusal for an older version ends.
  mutating func rowDecoded(version: Int64) {
    rowLookedAt = true
    decodedVersion = max(decodedVersion, version)
    if let undecodable = undecodableVersion, version >= undecodable { undecodableVersion = nil }
  }

  /// A read found no row: there is nothing to lose by writing.
  mutating func rowMissing() {
    rowLookedAt = true
    undecodableVersion = nil
  }

  /// The program said to write over the row whatever it holds (``PostgresKey/overwrite(with:)``).
  mutating func overwriteAllowed() {
    rowLookedAt = true
    undecodableVersion = nil
  }

  /// The save numbered `save` was refused after it read the row: the row holds `version`, which does not decode.
  /// Not a failure to retry: the save waits for the program to decide.
  mutating func saveRefused(_ save: UInt64, version: Int64) -> HeldChangeAction {
    savesRunning -= 1
    if save > newestSaveFinished {
      newestSaveFinished = save
      lastSaveFailed = false
    }
    rowUndecodable(version: version)
    return releaseHeld()
  }

  enum HeldChangeAction: Sendable, Equatable {
    case none
    /// A change held while a save or a load ran (the last of them just ended) is newer than what this instance
    /// knows: hear it again.
    case redeliver(StoredChange)
  }

  /// The save numbered `save` ended: with the version it wrote (`nil` when it failed), and whether memory holds what
  /// it wrote (a merged value may not reach memory when the program changed the value meanwhile; the next merge then
  /// compares against the older base and merges again). Whether memory must be saved again follows the newest save
  /// by start: a save that started before one that already finished does not change it.
  mutating func saveFinished(_ save: UInt64, written: Int64?, memoryHoldsWritten: Bool) -> HeldChangeAction {
    savesRunning -= 1
    if save > newestSaveFinished {
      newestSaveFinished = save
      lastSaveFailed = written == nil
    }
    if let written {
      // What this instance wrote decodes.
      rowDecoded(version: written)
      knownVersion = max(knownVersion, written)
      if memoryHoldsWritten { baseVersion = max(baseVersion, written) }
    }
    return releaseHeld()
  }

  private mutating func hold(_ change: StoredChange) {
    if (held?.version ?? 0) < change.version { held = change }
  }

  /// Once no save or load runs, the change held meanwhile is heard again if it is newer than what is known.
  private mutating func releaseHeld() -> HeldChangeAction {
    guard savesRunning == 0, loadsRunning == 0, let change = held else { return .none }
    held = nil
    return change.version > knownVersion ? .redeliver(change) : .none
  }
}
