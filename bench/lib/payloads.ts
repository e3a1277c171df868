/** Real FW3-shaped car messages (from the reference transcripts), and the API login the benchmarks share. */

export const S = 'S80,K,230,16,charging,standard,350,320,16,123,0,5.5,3,1,0,0,0,0,160,60,30,400,90,0,0,0,4000,20,85,450,type2,3.7,390.5,98,3.8,95,-10.5,45,6.2,1234.5,64.0';
export const D = 'D140,8,4,30,40,25,123,12345,0,0,20,2,1,1,12.5,4,12.6,16,35,1.2,21';
export const L = 'L51.500000,-0.100000,90,20,1,1,0,123,2,5.5,100,10,2,95,AA,9,0.9,0.0,80';

/**
 * The same car parked, switched off and not charging (the cable out: no line voltage, current or
 * power, the state `stopped`; in `D` the handbrake on and the car off, where the records above say
 * it is on, plugged in and charging): most of a parked fleet, the fleet benchmark's default.
 */
export const S_PARKED = 'S80,K,0,0,stopped,standard,350,320,16,0,0,5.5,3,21,0,0,0,0,160,60,30,400,90,0,0,0,4000,20,85,450,type2,0,390.5,98,0,95,-0.5,45,6.2,1234.5,64.0';
export const D_PARKED = 'D64,0,4,30,40,25,123,12345,0,0,20,2,1,1,12.5,4,12.6,16,35,1.2,21';
export const L_PARKED = 'L51.500000,-0.100000,90,20,1,1,0,123,2,0,100,10,2,95,AA,9,0.9,0.0,80';

/** `GET /api/cookie` on a server's HTTP port: the session cookie (`name=value`); throws when the login fails. */
export async function cookieLogin(httpPort: number, user: string, password: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${httpPort}/api/cookie?username=${encodeURIComponent(user)}&password=${encodeURIComponent(password)}`);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  if (res.status !== 200 || !cookie) throw new Error(`login failed: ${res.status}`);
  return cookie;
}
