/// The entries of one key identity type. Only touched under the registry's lock.
@usableFromInline
final class RegistryTable<ID: Hashable>: RegistryTableProtocol {
  /// Unchecked for exclusive access at run time: every access is under the registry's lock, one at a time, and the
  /// check cost about a tenth of finding an existing key (115 of its 1,243 instructions).
  @exclusivity(unchecked) @usableFromInline var entries: [ID: RegistryEntry] = [:]

  @usableFromInline
  init() {}

  var liveObjects: [AnyObject] { entries.values.compactMap(\.object) }

  var liveEntries: [RegistryInspection] {
    entries.compactMap { id, entry in
      entry.object.map {
        RegistryInspection(id: id, object: $0, isPermanent: entry.strongObject != nil, isBox: entry.isBox)
      }
    }
  }

  /// Gives back the room of the entries removed, once the table uses an eighth of it: a dictionary never shrinks
  /// by itself, so thousands of values freed at once (queries that went to sleep) would keep their slots. Each
  /// rebuild follows as many removals as entries it copies.
  func shrinkIfSparse() {
    let capacity = entries.capacity
    guard capacity >= 1024, entries.count <= capacity / 8 else { return }
    var smaller = [ID: RegistryEntry](minimumCapacity: entries.count * 2)
    for (id, entry) in entries { smaller[id] = entry }
    entries = smaller
  }
}

/// What a registry needs of a table without knowing its identity type.
protocol RegistryTableProtocol: AnyObject {
  var liveObjects: [AnyObject] { get }
  /// The live values with their keys' identities, for an inspection: released and described after the lock.
  var liveEntries: [RegistryInspection] { get }
}

/// A live value of a registry with its key's identity, as an inspection reads it.
struct RegistryInspection {
  let id: Any
  let object: AnyObject
  /// Whether the registry holds the value strongly (a permanent key's).
  let isPermanent: Bool
  /// Whether the value is a bare box (which each holder refers to twice: as its value and as its box).
  let isBox: Bool
}
