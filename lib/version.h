/* The version every command reports and every manifest records. */
#ifndef IOPSAMPLE_VERSION_H
#define IOPSAMPLE_VERSION_H

#define IOPSAMPLE_VERSION "0.1.0"

#endif
