// The whole C surface launchbench uses: libimobiledevice 1.3.0, libusbmuxd 2.0.2, libplist 2.2, and the
// OpenSSL 3 the library is built with (for the debugserver connection's TLS, which we do ourselves).
#ifndef CIMOBILEDEVICE_SHIM_H
#define CIMOBILEDEVICE_SHIM_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/pem.h>

#include <plist/plist.h>
#include <usbmuxd.h>
#include <libimobiledevice/libimobiledevice.h>
#include <libimobiledevice/lockdown.h>
#include <libimobiledevice/installation_proxy.h>
#include <libimobiledevice/property_list_service.h>
#include <libimobiledevice/afc.h>
#include <libimobiledevice/debugserver.h>
#include <libimobiledevice/diagnostics_relay.h>
#include <libimobiledevice/mobile_image_mounter.h>
#include <libimobiledevice/syslog_relay.h>

#endif
