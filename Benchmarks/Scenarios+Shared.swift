import SharedState
import Synchronization

/// Making a holder of a key that already has a value.
func existingKeyHolder() -> (Int) -> Void {
  let registry = SharedRegistry()
  let key = InMemoryKey<Int>("existing")
  let first = SharedRegistry.$current.withValue(registry) { Shared(wrappedValue: 0, key) }
  return { operations in
    SharedRegistry.$current.withValue(registry) {
      for _ in 0..<operations {
        blackHole(Shared(wrappedValue: 0, key))
      }
    }
    withExtendedLifetime(first) {}
  }
}

/// Looking up an object by name in a dictionary under a `Mutex`, the bare work of finding an existing key.
func lockedDictionaryLookup() -> (Int) -> Void {
  let table = NameTable()
  let name = "existing"
  table.names.withLock { $0[name] = MutexHolder() }
  return { operations in
    for _ in 0..<operations {
      blackHole(table.names.withLock { $0[name] })
    }
  }
}

/// Making the first holder of a new key, in a registry that already holds `existing` keys, in alternating batches
/// with the bare work (a new object put in a dictionary of as many names, under a `Mutex`): nanoseconds per key.
func newKey(existing: Int, added: Int = 2_000, repetitions: Int) -> Pair {
  let registry = SharedRegistry()
  let names = (0..<(existing + added * repetitions)).map { "key-\($0)" }
  let table = NameTable()
  table.names.withLock { table in
    for name in names.prefix(existing) { table[name] = MutexHolder() }
  }
  return SharedRegistry.$current.withValue(registry) {
    for name in names.prefix(existing) {
      blackHole(Shared(wrappedValue: 0, InMemoryKey<Int>(name)))
    }
    var samples: [Double] = []
    var baselineSamples: [Double] = []
    for repetition in 0..<repetitions {
      let batch = names[(existing + repetition * added)..<(existing + (repetition + 1) * added)]
      var start = now()
      for name in batch {
        let object = MutexHolder()
        table.names.withLock { $0[name] = object }
      }
      baselineSamples.append(Double(now() - start) / Double(added))
      start = now()
      for name in batch {
        blackHole(Shared(wrappedValue: 0, InMemoryKey<Int>(name)))
      }
      samples.append(Double(now() - start) / Double(added))
    }
    return Pair(scenario: Measurement(samples: samples), baseline: Measurement(samples: baselineSamples))
  }
}

/// Objects by name under a `Mutex`: the bare shape of a registry of keys.
final class NameTable: Sendable {
  let names = Mutex<[String: AnyObject]>([:])
}

/// `$x.withLock { $0 += 1 }` through a `@Shared` holder of an in-memory key.
func sharedIncrement() -> (Int) -> Void {
  let registry = SharedRegistry()
  return SharedRegistry.$current.withValue(registry) {
    @Shared(.inMemory("counter")) var counter = 0
    let handle = $counter
    return { operations in
      for _ in 0..<operations { handle.withLock { $0 += 1 } }
    }
  }
}

/// Reading through a `@Shared` holder.
func sharedRead() -> (Int) -> Void {
  let registry = SharedRegistry()
  return SharedRegistry.$current.withValue(registry) {
    @Shared(.inMemory("counter")) var counter = 0
    let handle = $counter
    return { operations in
      var sum = 0
      for _ in 0..<operations { sum &+= handle.wrappedValue }
      blackHole(sum)
    }
  }
}
