import SharedState

/// Making a holder of a key that already has a value.
func existingKeyHolder(_ plan: Plan) -> Measurement {
  let registry = SharedRegistry()
  return SharedRegistry.$current.withValue(registry) {
    let key = InMemoryKey<Int>("existing")
    let first = Shared(wrappedValue: 0, key)
    defer { withExtendedLifetime(first) {} }
    return plan.measure { operations in
      for _ in 0..<operations {
        blackHole(Shared(wrappedValue: 0, key))
      }
    }
  }
}

/// Making the first holder of a new key, in a registry that already holds `existing` keys: nanoseconds per key.
func newKey(existing: Int, added: Int = 2_000, repetitions: Int) -> Measurement {
  let registry = SharedRegistry()
  let names = (0..<(existing + added * repetitions)).map { "key-\($0)" }
  return SharedRegistry.$current.withValue(registry) {
    for name in names.prefix(existing) {
      blackHole(Shared(wrappedValue: 0, InMemoryKey<Int>(name)))
    }
    var samples: [Double] = []
    for repetition in 0..<repetitions {
      let batch = names[(existing + repetition * added)..<(existing + (repetition + 1) * added)]
      let start = now()
      for name in batch {
        blackHole(Shared(wrappedValue: 0, InMemoryKey<Int>(name)))
      }
      samples.append(Double(now() - start) / Double(added))
    }
    return Measurement(samples: samples)
  }
}

/// `$x.withLock { $0 += 1 }` through a `@Shared` holder of an in-memory key.
func sharedIncrement(_ plan: Plan) -> Measurement {
  let registry = SharedRegistry()
  return SharedRegistry.$current.withValue(registry) {
    @Shared(.inMemory("counter")) var counter = 0
    let handle = $counter
    return plan.measure { operations in
      for _ in 0..<operations { handle.withLock { $0 += 1 } }
    }
  }
}

/// Reading through a `@Shared` holder.
func sharedRead(_ plan: Plan) -> Measurement {
  let registry = SharedRegistry()
  return SharedRegistry.$current.withValue(registry) {
    @Shared(.inMemory("counter")) var counter = 0
    let handle = $counter
    return plan.measure { operations in
      var sum = 0
      for _ in 0..<operations { sum &+= handle.wrappedValue }
      blackHole(sum)
    }
  }
}
