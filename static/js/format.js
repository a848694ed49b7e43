// format.js - turning the API's base units into text.  The API speaks bytes,
// seconds, FLOP and USD; these helpers only change units and round for
// display.  GB means 10^9 bytes and GiB 2^30 bytes; each label says which.

export const GB = 1e9;
export const GIB = 1024 ** 3;

const nf = (digits) => new Intl.NumberFormat('en-US', {
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
});
const nf0 = nf(0), nf1 = nf(1), nf2 = nf(2);

export function isNum(v) {
        return typeof v === 'number' && Number.isFinite(v);
}

// "12.34" GiB or "—" when the figure is unknown (null in the API).
export function gib(bytes, digits = 2) {
        if (!isNum(bytes)) return '—';
        return nf(digits).format(bytes / GIB);
}

export function gb(bytes, digits = 2) {
        if (!isNum(bytes)) return '—';
        return nf(digits).format(bytes / GB);
}

export function integer(v) {
        return isNum(v) ? nf0.format(v) : '—';
}

export function decimal(v, digits = 2) {
        return isNum(v) ? nf(digits).format(v) : '—';
}

// 561,000,000 -> "561M"; 3,500,000,000 -> "3.50B".
export function count(v) {
        if (!isNum(v)) return '—';
        if (v >= 1e12) return nf2.format(v / 1e12) + 'T';
        if (v >= 1e9) return nf2.format(v / 1e9) + 'B';
        if (v >= 1e6) return nf0.format(v / 1e6) + 'M';
        if (v >= 1e3) return nf1.format(v / 1e3) + 'k';
        return nf0.format(v);
}

export function percent(fraction, digits = 1) {
        return isNum(fraction) ? nf(digits).format(fraction * 100) + ' %' : '—';
}

export function usd(v, digits = 2) {
        if (!isNum(v)) return '—';
        return '$' + nf(digits).format(v);
}

// FLOP/s as TFLOP/s.
export function tflops(v) {
        return isNum(v) ? nf1.format(v / 1e12) : '—';
}

// Bytes per second as GB/s.
export function gbps(v) {
        return isNum(v) ? nf0.format(v / 1e9) : '—';
}

// A duration in seconds, in the largest unit that reads well.
export function duration(seconds) {
        if (!isNum(seconds)) return '—';
        if (seconds < 1e-3) return nf1.format(seconds * 1e6) + ' µs';
        if (seconds < 1) return nf1.format(seconds * 1e3) + ' ms';
        if (seconds < 120) return nf2.format(seconds) + ' s';
        if (seconds < 7200) return nf1.format(seconds / 60) + ' min';
        if (seconds < 172800) return nf2.format(seconds / 3600) + ' h';
        return nf1.format(seconds / 86400) + ' days';
}

export function hours(v, digits = 2) {
        return isNum(v) ? nf(digits).format(v) : '—';
}

// snake_case API words for people: "pre_train" -> "pre train".
export function words(s) {
        return typeof s === 'string' ? s.replace(/_/g, ' ') : (s == null ? '—' : String(s));
}

// Bytes in the binary unit that reads well (KiB, MiB, GiB, TiB).
export function bytes(v) {
        if (!isNum(v)) return '—';
        const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
        let i = 0, x = v;
        while (Math.abs(x) >= 1024 && i < units.length - 1) {
                x /= 1024;
                i++;
        }
        return i === 0 ? `${integer(x)} bytes` : `${nf2.format(x)} ${units[i]}`;
}

// A number named by the API, in the unit its name says (…_bytes,
// …_bytes_per_s, …_seconds, …_per_second, …flops, …usd, fractions).
export function byName(key, v) {
        if (!isNum(v)) return v === null || v === undefined ? '—' : String(v);
        const k = String(key);
        if (/bytes_per_s$/.test(k)) return `${gbps(v)} GB/s`;
        if (/bytes/.test(k)) return bytes(v);
        if (/per_second/.test(k)) return `${decimal(v, 1)} /s`;
        if (/seconds/.test(k)) return duration(v);
        if (/flops/.test(k)) return `${tflops(v)} TFLOP/s`;
        if (/usd/.test(k)) return usd(v);
        if (/(utilization|utilisation|fraction|mfu)$/.test(k)) return percent(v);
        return Number.isInteger(v) ? integer(v) : decimal(v, 3);
}
