import CoreMedia
import Foundation
import Testing

private func t(_ v: Int64, _ ts: Int32, epoch: Int64 = 0) -> CMTime { CMTimeMakeWithEpoch(value: v, timescale: ts, epoch: epoch) }

@Suite("CMTime construction and predicates")
struct CMTimeConstructionTests {
    @Test func constantsHaveApplesFields() {
        #expect(CMTime.zero.value == 0 && CMTime.zero.timescale == 1 && CMTime.zero.flags == .valid)
        #expect(CMTime.invalid.flags.rawValue == 0 && CMTime().flags.rawValue == 0)
        #expect(CMTime.indefinite.flags == [.valid, .indefinite])
        #expect(CMTime.positiveInfinity.flags == [.valid, .positiveInfinity])
        #expect(CMTime.negativeInfinity.flags == [.valid, .negativeInfinity])
        #expect(CMTimeFlags.impliedValueFlagsMask.rawValue == 28)
        #expect(kCMTimeMaxTimescale == 0x7fff_ffff)
        #expect(CMTimeRoundingMethod.default == .roundHalfAwayFromZero)
    }

    @Test func predicates() {
        let numeric = CMTime(value: 3, timescale: 2)
        #expect(numeric.isValid && numeric.isNumeric && !numeric.isIndefinite && !numeric.hasBeenRounded)
        #expect(!CMTime.invalid.isValid && !CMTime.invalid.isNumeric)
        #expect(CMTime.indefinite.isIndefinite && !CMTime.indefinite.isNumeric)
        #expect(CMTime.positiveInfinity.isPositiveInfinity && !CMTime.positiveInfinity.isNegativeInfinity)
        #expect(CMTime.negativeInfinity.isNegativeInfinity && !CMTime.negativeInfinity.isNumeric)
        // Implied-value flags without .valid are still invalid.
        let bogus = CMTime(value: 0, timescale: 0, flags: .positiveInfinity, epoch: 0)
        #expect(!bogus.isPositiveInfinity && !bogus.isValid)
        // hasBeenRounded is only reported for numeric times.
        let roundedInfinity = CMTime(value: 0, timescale: 0, flags: [.valid, .positiveInfinity, .hasBeenRounded], epoch: 0)
        #expect(!roundedInfinity.hasBeenRounded)
        #expect(CMTIME_IS_NUMERIC(numeric) && CMTIME_IS_INVALID(.invalid) && CMTIME_IS_INDEFINITE(.indefinite))
    }

    @Test func seconds() {
        #expect(CMTime(value: 3, timescale: 2).seconds == 1.5)
        #expect(CMTime.invalid.seconds.isNaN)
        #expect(CMTime.indefinite.seconds.isNaN)
        #expect(CMTime.positiveInfinity.seconds == .infinity)
        #expect(CMTime.negativeInfinity.seconds == -.infinity)
        #expect(CMTimeGetSeconds(t(-1, 4, epoch: 9)) == -0.25, "epoch is ignored")
    }

    @Test func makeWithSeconds() {
        let half = CMTime(seconds: 0.5, preferredTimescale: 600)
        #expect(half.value == 300 && half.timescale == 600 && !half.hasBeenRounded)
        let third = CMTime(seconds: 1.0 / 3.0, preferredTimescale: 600)
        #expect(third.value == 200 && !third.hasBeenRounded, "200/600 converts back to exactly 1.0/3.0")
        let inexact = CMTime(seconds: 0.1234, preferredTimescale: 600)
        #expect(inexact.value == 74 && inexact.hasBeenRounded)
        let negative = CMTimeMakeWithSeconds(-2.5, preferredTimescale: 1)
        #expect(negative.value == -3 && negative.hasBeenRounded, "half away from zero")
        #expect(!CMTimeMakeWithSeconds(1, preferredTimescale: 0).isValid)
        #expect(!CMTimeMakeWithSeconds(1, preferredTimescale: -5).isValid)
        #expect(!CMTimeMakeWithSeconds(.nan, preferredTimescale: 600).isValid)
        #expect(CMTimeMakeWithSeconds(.infinity, preferredTimescale: 600).isPositiveInfinity)
        #expect(CMTimeMakeWithSeconds(-.infinity, preferredTimescale: 600).isNegativeInfinity)
        // 1e16 s at 1e9 overflows Int64: timescale halves until the value fits.
        let big = CMTimeMakeWithSeconds(1e16, preferredTimescale: 1_000_000_000)
        #expect(big.isNumeric && big.timescale < 1_000_000_000 && big.timescale > 0)
        #expect(abs(big.seconds - 1e16) / 1e16 < 1e-12)
        #expect(CMTimeMakeWithSeconds(1e300, preferredTimescale: 600).isPositiveInfinity)
        #expect(CMTimeMakeWithSeconds(-1e300, preferredTimescale: 600).isNegativeInfinity)
    }
}

@Suite("CMTime rounding")
struct CMTimeRoundingTests {
    // 7/10 s to timescale 4 is 2.8; -7/10 is -2.8; 5/10 to 4 is exactly 2.0; 3/8 to 4 is 1.5; 1/8 to 4 is 0.5.
    @Test(arguments: [
        (CMTimeRoundingMethod.roundHalfAwayFromZero, Int64(7), Int64(3)), (.roundHalfAwayFromZero, -7, -3),
        (.roundHalfAwayFromZero, 3, 2), (.roundHalfAwayFromZero, -3, -2), (.roundHalfAwayFromZero, 1, 1),
        (.roundTowardZero, 7, 2), (.roundTowardZero, -7, -2), (.roundTowardZero, 3, 1),
        (.roundAwayFromZero, 1, 1), (.roundAwayFromZero, -1, -1), (.roundAwayFromZero, 5, 3),
        (.roundTowardPositiveInfinity, 7, 3), (.roundTowardPositiveInfinity, -7, -2),
        (.roundTowardNegativeInfinity, 7, 2), (.roundTowardNegativeInfinity, -7, -3),
        (.quickTime, 7, 2), (.quickTime, -7, -2), (.quickTime, 1, 0), (.quickTime, -1, -1),
    ])
    func toSmallerTimescale(method: CMTimeRoundingMethod, tenthsOrEighths: Int64, expected: Int64) {
        // Odd magnitudes below 8 are eighths (exercise halves), the others tenths.
        let source = abs(tenthsOrEighths) == 7 ? t(tenthsOrEighths, 10) : t(tenthsOrEighths, 8)
        let converted = source.convertScale(4, method: method)
        #expect(converted.value == expected, "\(source) with \(method)")
        #expect(converted.timescale == 4)
        let exact = Double(expected) / 4 == source.seconds
        #expect(converted.hasBeenRounded == !exact)
    }

    @Test func quickTimeRoundsAwayWhenScalingUp() {
        // 1/3 to timescale 10 is 3.33...: away from zero under QuickTime, toward zero by truncation.
        #expect(t(1, 3).convertScale(10, method: .quickTime).value == 4)
        #expect(t(-1, 3).convertScale(10, method: .quickTime).value == -4)
        #expect(t(1, 3).convertScale(10, method: .roundTowardZero).value == 3)
    }

    @Test func convertScaleEdges() {
        let exact = t(1, 2).convertScale(600, method: .default)
        #expect(exact.value == 300 && exact.timescale == 600 && !exact.hasBeenRounded)
        #expect(CMTime.positiveInfinity.convertScale(600, method: .default).isPositiveInfinity)
        #expect(CMTime.indefinite.convertScale(600, method: .default).isIndefinite)
        #expect(!CMTime.invalid.convertScale(600, method: .default).isValid)
        #expect(!t(1, 2).convertScale(0, method: .default).isValid)
        let epoch = CMTimeConvertScale(t(1, 2, epoch: 3), timescale: 4, method: .default)
        #expect(epoch.epoch == 3 && epoch.value == 2)
        // A rounded operand stays rounded even when the conversion is exact.
        var rounded = t(1, 2)
        rounded.flags.insert(.hasBeenRounded)
        #expect(rounded.convertScale(4, method: .default).hasBeenRounded)
        #expect(t(Int64.max, 1).convertScale(1000, method: .default).isPositiveInfinity)
    }
}

@Suite("CMTime arithmetic")
struct CMTimeArithmeticTests {
    @Test func addUsesLeastCommonMultiple() {
        let sum = t(1, 2) + t(1, 3)
        #expect(sum.value == 5 && sum.timescale == 6 && !sum.hasBeenRounded)
        let same = t(1, 600) + t(2, 600)
        #expect(same.value == 3 && same.timescale == 600)
        let diff = t(1, 2) - t(1, 3)
        #expect(diff.value == 1 && diff.timescale == 6)
        #expect(CMTimeAdd(t(1, 4), t(1, 6)).timescale == 12)
    }

    @Test func lcmAboveMaxTimescaleIsClampedAndRounded() {
        // Two large primes: their LCM far exceeds 0x7fffffff.
        let a = t(1, 2_147_483_647), b = t(1, 2_147_483_629)
        let sum = a + b
        #expect(sum.timescale == 0x7fff_ffff)
        #expect(sum.hasBeenRounded)
        #expect(sum.value == 2, "1/p + 1/q at timescale p rounds to 2/p")
    }

    @Test func overflowHalvesTimescaleThenGoesInfinite() {
        let sum = t(Int64.max, 1000) + t(Int64.max, 1000)
        #expect(sum.isNumeric && sum.timescale == 500 && sum.value == Int64.max && !sum.hasBeenRounded)
        let odd = t(Int64.max, 999) + t(Int64.max, 999)
        #expect(odd.timescale == 499 && odd.hasBeenRounded)
        #expect((t(Int64.max, 1) + t(1, 1)).isPositiveInfinity)
        #expect((t(Int64.min, 1) - t(1, 1)).isNegativeInfinity)
    }

    @Test func roundedFlagPropagates() {
        var r = t(1, 3)
        r.flags.insert(.hasBeenRounded)
        #expect((r + t(1, 3)).hasBeenRounded)
        #expect((t(1, 3) - r).hasBeenRounded)
        #expect(!(t(1, 3) + t(1, 3)).hasBeenRounded)
    }

    @Test func nonNumericOperands() {
        let one = t(1, 1)
        #expect(!(CMTime.invalid + one).isValid)
        #expect(!(one - CMTime.invalid).isValid)
        #expect((CMTime.positiveInfinity + one).isPositiveInfinity)
        #expect((one + CMTime.negativeInfinity).isNegativeInfinity)
        #expect((CMTime.positiveInfinity + .positiveInfinity).isPositiveInfinity)
        #expect((CMTime.negativeInfinity + .negativeInfinity).isNegativeInfinity)
        #expect(!(CMTime.positiveInfinity + .negativeInfinity).isValid)
        #expect(!(CMTime.negativeInfinity + .positiveInfinity).isValid)
        #expect(!(CMTime.positiveInfinity - .positiveInfinity).isValid)
        #expect(!(CMTime.negativeInfinity - .negativeInfinity).isValid)
        #expect((CMTime.positiveInfinity - .negativeInfinity).isPositiveInfinity)
        #expect((CMTime.negativeInfinity - .positiveInfinity).isNegativeInfinity)
        #expect((one - .positiveInfinity).isNegativeInfinity)
        #expect((CMTime.indefinite + one).isIndefinite)
        #expect((one - .indefinite).isIndefinite)
        #expect((CMTime.indefinite + .positiveInfinity).isPositiveInfinity, "infinity wins over indefinite")
    }

    @Test func epochs() {
        #expect(!(t(1, 1, epoch: 1) + t(1, 1, epoch: 2)).isValid, "different non-zero epochs")
        let sameEpoch = t(5, 1, epoch: 3) - t(2, 1, epoch: 3)
        #expect(sameEpoch.epoch == 0 && sameEpoch.value == 3, "same epoch gives a duration")
        let duration = t(5, 1, epoch: 3) + t(2, 1)
        #expect(duration.epoch == 3 && duration.value == 7, "a duration adds to a timestamp")
    }

    @Test func multiply() {
        let p = CMTimeMultiply(t(3, 600), multiplier: 4)
        #expect(p.value == 12 && p.timescale == 600 && !p.hasBeenRounded)
        let overflow = CMTimeMultiply(t(Int64.max / 2 + 1, 4), multiplier: 2)
        #expect(overflow.timescale == 2 && overflow.value == Int64.max / 2 + 1)
        #expect(CMTimeMultiply(t(Int64.max, 1), multiplier: 2).isPositiveInfinity)
        #expect(CMTimeMultiply(t(Int64.max, 1), multiplier: -2).isNegativeInfinity)
        #expect(CMTimeMultiply(.positiveInfinity, multiplier: -1).isNegativeInfinity)
        #expect(CMTimeMultiply(.negativeInfinity, multiplier: -1).isPositiveInfinity)
        #expect(CMTimeMultiply(.indefinite, multiplier: 3).isIndefinite)
        #expect(!CMTimeMultiply(.invalid, multiplier: 3).isValid)
    }

    @Test func multiplyByFloat64() {
        let r = CMTimeMultiplyByFloat64(t(1, 600), multiplier: 1.5)
        #expect(r.timescale == 76_800, "600 doubled until at least 65536")
        #expect(r.seconds == 1.5 / 600 && !r.hasBeenRounded)
        let big = CMTimeMultiplyByFloat64(t(1, 100_000), multiplier: 2)
        #expect(big.timescale == 100_000 && big.value == 2)
        let third = CMTimeMultiplyByFloat64(t(1, 1), multiplier: 1.0 / 3.0)
        #expect(third.hasBeenRounded && abs(third.seconds - 1.0 / 3.0) < 1e-5)
        #expect(CMTimeMultiplyByFloat64(t(1, 1), multiplier: 1e300).isPositiveInfinity)
        #expect(CMTimeMultiplyByFloat64(.positiveInfinity, multiplier: -2).isNegativeInfinity)
        #expect(!CMTimeMultiplyByFloat64(t(1, 1), multiplier: .nan).isValid)
    }

    @Test func multiplyByRatio() {
        let half = CMTimeMultiplyByRatio(t(600, 600), multiplier: 1, divisor: 2)
        #expect(half.value == 300 && half.timescale == 600, "exact at the time's own timescale")
        let third = CMTimeMultiplyByRatio(t(1, 600), multiplier: 1, divisor: 3)
        #expect(third.value == 1 && third.timescale == 1800 && !third.hasBeenRounded, "exact as a reduced fraction")
        let negative = CMTimeMultiplyByRatio(t(3, 4), multiplier: 2, divisor: -3)
        #expect(negative == t(-1, 2))
        #expect(!CMTimeMultiplyByRatio(t(0, 1), multiplier: 3, divisor: 0).isValid)
        #expect(!CMTimeMultiplyByRatio(t(1, 1), multiplier: 0, divisor: 0).isValid)
        #expect(CMTimeMultiplyByRatio(t(1, 1), multiplier: 3, divisor: 0).isPositiveInfinity)
        #expect(CMTimeMultiplyByRatio(t(-1, 1), multiplier: 3, divisor: 0).isNegativeInfinity)
        let inexact = CMTimeMultiplyByRatio(t(1, 0x7fff_ffff), multiplier: 1, divisor: 3)
        #expect(inexact.hasBeenRounded && inexact.timescale == 0x7fff_ffff)
    }

    @Test func absoluteMinimumMaximum() {
        #expect(CMTimeAbsoluteValue(t(-3, 2)) == t(3, 2))
        #expect(CMTimeAbsoluteValue(t(3, 2)) == t(3, 2))
        #expect(CMTimeAbsoluteValue(.negativeInfinity).isPositiveInfinity)
        #expect(CMTimeAbsoluteValue(t(Int64.min, 2)).isNumeric, "|Int64.min| halves the timescale")
        #expect(CMTimeAbsoluteValue(t(Int64.min, 2)).seconds == -Double(Int64.min) / 2)
        #expect(CMTimeMinimum(t(1, 2), t(1, 3)) == t(1, 3))
        #expect(CMTimeMaximum(t(1, 2), t(1, 3)) == t(1, 2))
        #expect(!CMTimeMaximum(t(1, 2), .invalid).isValid, "invalid sorts last")
        #expect(CMTimeMinimum(t(1, 2), .invalid) == t(1, 2))
        #expect(min(t(5, 1), CMTime.negativeInfinity).isNegativeInfinity)
    }
}

@Suite("CMTime comparison and hashing")
struct CMTimeComparisonTests {
    @Test func comparesAcrossTimescales() {
        #expect(t(1, 2) == t(500, 1000))
        #expect(CMTime(value: 1, timescale: 2) == CMTime(value: 300, timescale: 600))
        #expect(t(1, 3) < t(1, 2))
        #expect(CMTimeCompare(t(2, 3), t(200_000_001, 300_000_000)) == -1, "exact, not floating point")
        #expect(CMTimeCompare(t(Int64.max, 1), t(Int64.max - 1, 1)) == 1)
        #expect(t(-1, 2) < t(0, 1))
    }

    @Test func documentedOrderOfKinds() {
        let ordered: [CMTime] = [.negativeInfinity, t(-5, 1), t(0, 1), t(7, 2), .indefinite, .positiveInfinity, .invalid]
        for i in ordered.indices {
            for j in ordered.indices {
                let expected: Int32 = i < j ? -1 : (i == j ? 0 : 1)
                #expect(CMTimeCompare(ordered[i], ordered[j]) == expected, "\(ordered[i]) vs \(ordered[j])")
            }
        }
        #expect(ordered.shuffled().sorted() == ordered)
    }

    @Test func epochsCompareFirst() {
        #expect(t(100, 1, epoch: 0) < t(1, 1, epoch: 1))
        #expect(t(1, 1, epoch: 2) > t(1000, 1, epoch: 1))
        #expect(t(1, 1, epoch: 1) != t(1, 1, epoch: 2))
    }

    @Test func roundingFlagDoesNotAffectEquality() {
        var rounded = t(1, 2)
        rounded.flags.insert(.hasBeenRounded)
        #expect(rounded == t(1, 2))
        #expect(rounded.hashValue == t(1, 2).hashValue)
    }

    @Test func hashIsConsistentWithEquality() {
        #expect(t(1, 2).hashValue == t(500, 1000).hashValue)
        #expect(t(0, 1).hashValue == t(0, 90000).hashValue)
        #expect(t(-3, 6).hashValue == t(-1, 2).hashValue)
        let set: Set<CMTime> = [t(1, 2), t(500, 1000), t(300, 600), t(1, 3), .invalid, CMTime(), .indefinite]
        #expect(set.count == 4)
        let infinities: Set<CMTime> = [.positiveInfinity, CMTime(value: 9, timescale: 9, flags: [.valid, .positiveInfinity], epoch: 4)]
        #expect(infinities.count == 1, "implied-value times ignore their other fields")
    }

    @Test func codableRoundTrip() throws {
        let times: [CMTime] = [t(7, 600, epoch: 2), .positiveInfinity, .invalid]
        let data = try JSONEncoder().encode(times)
        let decoded = try JSONDecoder().decode([CMTime].self, from: data)
        #expect(decoded.map(\.flags) == times.map(\.flags))
        #expect(decoded[0].value == 7 && decoded[0].timescale == 600 && decoded[0].epoch == 2)
    }

    @Test func description() {
        #expect(t(1, 2).description == "{1/2 = 0.500}")
        #expect(CMTime.invalid.description == "{INVALID}")
    }
}
