import Shared

let counter = ReactiveBox(0)
counter.withLock { $0 += 1 }
print("counter:", counter.value)
