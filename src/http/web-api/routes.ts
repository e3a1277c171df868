/**
 * The table of vts's own calls for the web dashboard and other tools (docs/web-api.md): each
 * call's method and path, its handler with its options (in this folder) and its OpenAPI
 * description (openapi.ts; drives, charges, places, battery and stats: openapi-drives.ts; ABRP: openapi-abrp.ts; alerts: openapi-alerts.ts; own vehicles and shares: openapi-shares.ts; account and second factors: openapi-security.ts; sign-up and recovery: openapi-account.ts; the operator's page: openapi-admin.ts). Errors
 * are `{"error","message"}`.
 */
import type { ApiGroup } from '../api-call.js';
import { accountOptions, confirmReset, requestReset, resendVerification, signUp, verifyAccount } from './account.js';
import { ACCOUNT_DOCS as accountDoc } from './openapi-account.js';
import { linkAbrp, readAbrp, unlinkAbrp } from './abrp.js';
import { listUsers, removeUser, userAction } from './admin.js';
import { listAudit, listVehicles, serverFigures } from './admin-lists.js';
import { ADMIN_DOCS as adminDoc } from './openapi-admin.js';
import { addAlert, putAlerts, readAlerts, removeAlert } from './alerts.js';
import { ALERT_DOCS as alertDoc } from './openapi-alerts.js';
import { ABRP_DOCS as abrpDoc } from './openapi-abrp.js';
import { battery } from './battery.js';
import { charges } from './charges.js';
import { drives } from './drives.js';
import { history } from './history.js';
import { integrations } from './integrations.js';
import { INTEGRATIONS_DOCS } from './openapi-integrations.js';
import { live } from './live.js';
import { WEB_DOCS as doc } from './openapi.js';
import { DRIVES_DOCS as drivesDoc } from './openapi-drives.js';
import { overview } from './overview.js';
import { changePassword } from './password.js';
import { addPlace, changePlace, listPlaces, removePlace } from './places.js';
import { addTarget, notifications, readPush, removePush } from './push.js';
import { signIn, signOut, whoAmI } from './session.js';
import { beginTotp, changeAccount, confirmTotp, disableTotp, readAccount } from './account-security.js';
import { SECURITY_DOCS as securityDoc } from './openapi-security.js';
import { addPasskey, listPasskeys, passkeyRegistrationOptions, passkeySignIn, passkeySignInOptions, removePasskey, renamePasskey } from './passkeys.js';
import { stats } from './stats.js';
import { addOwnVehicle, changeOwnVehicle, listOwnVehicles, removeOwnVehicle } from './own-vehicles.js';
import { addShare, listShares, removeShare } from './shares.js';
import { SHARE_DOCS as shareDoc } from './openapi-shares.js';

export const WEB_API: ApiGroup = {
  name: 'web_api',
  errors: 'json',
  rows: [
    { method: 'POST', path: '/api/session', route: signIn, doc: doc.signIn },
    { method: 'GET', path: '/api/session', route: whoAmI, doc: doc.whoAmI },
    { method: 'DELETE', path: '/api/session', route: signOut, doc: doc.signOut },
    { method: 'POST', path: '/api/session/passkey/options', route: passkeySignInOptions, doc: securityDoc.passkeySignInOptions },
    { method: 'POST', path: '/api/session/passkey', route: passkeySignIn, doc: securityDoc.passkeySignIn },
    { method: 'POST', path: '/api/password', route: changePassword, doc: doc.changePassword },
    { method: 'GET', path: '/api/account', route: readAccount, doc: securityDoc.readAccount },
    { method: 'PUT', path: '/api/account', route: changeAccount, doc: securityDoc.changeAccount },
    { method: 'POST', path: '/api/account/totp', route: beginTotp, doc: securityDoc.beginTotp },
    { method: 'POST', path: '/api/account/totp/confirm', route: confirmTotp, doc: securityDoc.confirmTotp },
    { method: 'DELETE', path: '/api/account/totp', route: disableTotp, doc: securityDoc.disableTotp },
    { method: 'POST', path: '/api/account/passkeys/options', route: passkeyRegistrationOptions, doc: securityDoc.passkeyOptions },
    { method: 'POST', path: '/api/account/passkeys', route: addPasskey, doc: securityDoc.addPasskey },
    { method: 'GET', path: '/api/account/passkeys', route: listPasskeys, doc: securityDoc.listPasskeys },
    { method: 'PUT', path: '/api/account/passkeys/{id}', route: renamePasskey, doc: securityDoc.renamePasskey },
    { method: 'DELETE', path: '/api/account/passkeys/{id}', route: removePasskey, doc: securityDoc.removePasskey },
    { method: 'GET', path: '/api/account/options', route: accountOptions, doc: accountDoc.accountOptions },
    { method: 'POST', path: '/api/account', route: signUp, doc: accountDoc.signUp },
    { method: 'POST', path: '/api/account/verify', route: verifyAccount, doc: accountDoc.verifyAccount },
    { method: 'POST', path: '/api/account/verify/resend', route: resendVerification, doc: accountDoc.resendVerification },
    { method: 'POST', path: '/api/account/reset', route: requestReset, doc: accountDoc.requestReset },
    { method: 'POST', path: '/api/account/reset/confirm', route: confirmReset, doc: accountDoc.confirmReset },
    { method: 'GET', path: '/api/overview', route: overview, doc: doc.overview },
    { method: 'GET', path: '/api/live/{vehicleId}', route: live, doc: doc.live },
    { method: 'GET', path: '/api/history/{vehicleId}', route: history, doc: doc.history },
    { method: 'GET', path: '/api/drives/{vehicleId}', route: drives, doc: drivesDoc.listDrives },
    { method: 'GET', path: '/api/drives/{vehicleId}/{id}', route: drives, doc: drivesDoc.getDrive },
    { method: 'GET', path: '/api/drives/{vehicleId}/{id}/gpx', route: drives, doc: drivesDoc.driveGpx },
    { method: 'GET', path: '/api/charges/{vehicleId}', route: charges, doc: drivesDoc.listCharges },
    { method: 'GET', path: '/api/charges/{vehicleId}/{id}', route: charges, doc: drivesDoc.getCharge },
    { method: 'GET', path: '/api/places', route: listPlaces, doc: drivesDoc.listPlaces },
    { method: 'POST', path: '/api/places', route: addPlace, doc: drivesDoc.addPlace },
    { method: 'PUT', path: '/api/places/{id}', route: changePlace, doc: drivesDoc.changePlace },
    { method: 'DELETE', path: '/api/places/{id}', route: removePlace, doc: drivesDoc.removePlace },
    { method: 'GET', path: '/api/battery/{vehicleId}', route: battery, doc: drivesDoc.battery },
    { method: 'GET', path: '/api/stats/{vehicleId}', route: stats, doc: drivesDoc.stats },
    { method: 'GET', path: '/api/push/subscriptions', route: readPush, doc: doc.listSubscriptions },
    { method: 'GET', path: '/api/push/subscriptions/{vehicleId}', route: readPush, doc: doc.listVehicleSubscriptions },
    { method: 'DELETE', path: '/api/push/subscriptions/{vehicleId}/{appId}', route: removePush, doc: doc.deleteSubscription },
    { method: 'GET', path: '/api/push/targets', route: readPush, doc: doc.listTargets },
    { method: 'POST', path: '/api/push/targets', route: addTarget, doc: doc.addTarget },
    { method: 'DELETE', path: '/api/push/targets/{id}', route: removePush, doc: doc.deleteTarget },
    { method: 'GET', path: '/api/notifications/{vehicleId}', route: notifications, doc: doc.notifications },
    { method: 'GET', path: '/api/integrations/{vehicleId}', route: integrations, doc: INTEGRATIONS_DOCS.integrations },
    { method: 'GET', path: '/api/abrp/{vehicleId}', route: readAbrp, doc: abrpDoc.readAbrp },
    { method: 'PUT', path: '/api/abrp/{vehicleId}', route: linkAbrp, doc: abrpDoc.linkAbrp },
    { method: 'DELETE', path: '/api/abrp/{vehicleId}', route: unlinkAbrp, doc: abrpDoc.unlinkAbrp },
    { method: 'GET', path: '/api/alerts', route: readAlerts, doc: alertDoc.readAlertSettings },
    { method: 'PUT', path: '/api/alerts', route: putAlerts, doc: alertDoc.setAlertSettings },
    { method: 'GET', path: '/api/alerts/{vehicleId}', route: readAlerts, doc: alertDoc.listAlerts },
    { method: 'POST', path: '/api/alerts/{vehicleId}', route: addAlert, doc: alertDoc.addAlert },
    { method: 'PUT', path: '/api/alerts/{vehicleId}/{id}', route: putAlerts, doc: alertDoc.changeAlert },
    { method: 'DELETE', path: '/api/alerts/{vehicleId}/{id}', route: removeAlert, doc: alertDoc.removeAlert },
    { method: 'POST', path: '/api/account/vehicles', route: addOwnVehicle, doc: shareDoc.addOwnVehicle },
    { method: 'GET', path: '/api/account/vehicles', route: listOwnVehicles, doc: shareDoc.listOwnVehicles },
    { method: 'PUT', path: '/api/account/vehicles/{vehicleId}', route: changeOwnVehicle, doc: shareDoc.changeOwnVehicle },
    { method: 'DELETE', path: '/api/account/vehicles/{vehicleId}', route: removeOwnVehicle, doc: shareDoc.removeOwnVehicle },
    { method: 'GET', path: '/api/shares/{vehicleId}', route: listShares, doc: shareDoc.listShares },
    { method: 'POST', path: '/api/shares/{vehicleId}', route: addShare, doc: shareDoc.addShare },
    { method: 'DELETE', path: '/api/shares/{vehicleId}/{user}', route: removeShare, doc: shareDoc.removeShare },
    { method: 'GET', path: '/api/admin/users', route: listUsers, doc: adminDoc.listUsers },
    { method: 'POST', path: '/api/admin/users/{name}/disable', route: userAction, doc: adminDoc.disableUser },
    { method: 'POST', path: '/api/admin/users/{name}/enable', route: userAction, doc: adminDoc.enableUser },
    { method: 'POST', path: '/api/admin/users/{name}/verify', route: userAction, doc: adminDoc.verifyUser },
    { method: 'POST', path: '/api/admin/users/{name}/reset-password', route: userAction, doc: adminDoc.resetPassword },
    { method: 'DELETE', path: '/api/admin/users/{name}', route: removeUser, doc: adminDoc.removeUser },
    { method: 'GET', path: '/api/admin/vehicles', route: listVehicles, doc: adminDoc.listVehicles },
    { method: 'GET', path: '/api/admin/server', route: serverFigures, doc: adminDoc.server },
    { method: 'GET', path: '/api/admin/audit', route: listAudit, doc: adminDoc.audit },
  ],
};
