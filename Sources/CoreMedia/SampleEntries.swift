/// A sample buffer's timing or size entries: none, one for every sample, or one per sample. A single
/// entry is kept inline, so a buffer of one sample (a reader makes one for each stored packet) holds
/// no array for its timing or its size. Reads as a random-access collection, as an array would.
struct SampleEntries<Element>: RandomAccessCollection, ExpressibleByArrayLiteral {
    private enum Storage {
        case one(Element)
        case many([Element])
    }

    private var storage: Storage

    init(_ elements: [Element]) {
        storage = elements.count == 1 ? .one(elements[0]) : .many(elements)
    }

    init(arrayLiteral elements: Element...) {
        self.init(elements)
    }

    /// The entries at `pointer`: `count` of them (none when 0); nil for a nil pointer with entries.
    init?(_ pointer: UnsafePointer<Element>?, _ count: Int) {
        guard count > 0 else {
            storage = .many([])
            return
        }
        guard let pointer else { return nil }
        storage = count == 1 ? .one(pointer.pointee) : .many(Array(UnsafeBufferPointer(start: pointer, count: count)))
    }

    var startIndex: Int { 0 }

    var endIndex: Int {
        switch storage {
        case .one: 1
        case .many(let elements): elements.count
        }
    }

    subscript(position: Int) -> Element {
        switch storage {
        case .one(let element) where position == 0: element
        // Out of range: traps as an array's subscript does.
        case .one(let element): CollectionOfOne(element)[position]
        case .many(let elements): elements[position]
        }
    }
}
