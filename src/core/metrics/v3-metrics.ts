// TEMPORARY STUB (replaced by the v3map branch)
export interface V3MetricsContext { distanceUnit: 'K' | 'M' }
export function metricsOfRecord(code: string, data: string, ctx: V3MetricsContext): Array<[string, string]> { void code; void data; void ctx; return []; }
export function distanceUnitOf(sData: string): 'K' | 'M' { return sData.split(',')[1] === 'M' ? 'M' : 'K'; }
